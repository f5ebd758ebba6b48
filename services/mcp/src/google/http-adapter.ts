/**
 * gaxios's `adapter` option (googleapis passes it through), as much of it as Sheetgate uses: it
 * sees every HTTP attempt to Google, its URL before and its status after.
 */
export type GoogleHttpAdapter = <
  Options extends { method?: string; url: string | URL; signal?: AbortSignal | null | undefined },
  Response extends { status: number; headers?: unknown; data?: unknown },
>(
  options: Options,
  defaultAdapter: (options: Options) => Promise<Response>,
) => Promise<Response>;
