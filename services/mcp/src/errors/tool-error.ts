/**
 * A tool failure the model should read (not a protocol error): becomes `isError: true`. Below both
 * the tools and the Google adapters, which say what went wrong with Google in these words too.
 */
export class ToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ToolError';
  }
}
