import type { Logger } from '@sheetgate/service-runtime';

/**
 * Promises the service's own code makes and a caller cannot break: a tool answers
 * `structuredContent` its `outputSchema` accepts (clients validate it against the schema they
 * listed), and every Google request is made for a person (their turn at Google's quota,
 * docs/design.md §11.6). A broken one is a bug here, never the caller's fault.
 */
export const CONTRACT_KINDS = ['tool_output', 'google_without_person'] as const;
export type ContractKind = (typeof CONTRACT_KINDS)[number];

/**
 * What a broken promise does: `fail` fails the call with the violation named (so any test that
 * reaches it fails), `log` logs it at error, counts it, and lets the answer or request go on as it
 * would have gone (production: a bug must not take a working call down with it).
 */
export type ContractMode = 'fail' | 'log';

/** Production only logs; everywhere else a violation fails the call. */
export function defaultContractMode(): ContractMode {
  return process.env.NODE_ENV === 'production' ? 'log' : 'fail';
}

/** Thrown in `fail` mode: the message names the kind, the tool and what was wrong. */
export class ContractViolation extends Error {
  readonly kind: ContractKind;
  readonly tool: string;

  constructor(kind: ContractKind, tool: string, message: string) {
    super(message);
    this.name = 'ContractViolation';
    this.kind = kind;
    this.tool = tool;
  }
}

export interface ContractChecks {
  readonly mode: ContractMode;
  /** Logs and counts a violation; in `fail` mode then throws it as a ContractViolation. */
  violated(kind: ContractKind, tool: string, message: string): void;
}

export function createContractChecks(options: {
  mode: ContractMode;
  logger: Logger;
  /** Told of each violation (the metrics count them by kind and tool). */
  onViolation?: (kind: ContractKind, tool: string) => void;
}): ContractChecks {
  return {
    mode: options.mode,
    violated(kind, tool, message) {
      options.onViolation?.(kind, tool);
      options.logger.error({ contract: kind, tool, mode: options.mode }, message);
      if (options.mode === 'fail') throw new ContractViolation(kind, tool, message);
    },
  };
}

/** The violation an error is or carries (gaxios wraps what an HTTP adapter throws as its `cause`). */
export function violationIn(error: unknown): ContractViolation | undefined {
  if (error instanceof ContractViolation) return error;
  const cause = error instanceof Error ? error.cause : undefined;
  return cause instanceof ContractViolation ? cause : undefined;
}
