/** A request that fails as a JSON-RPC error (not a tool result); thrown by method handlers. */
export class RpcFailure extends Error {
  readonly code: number;
  readonly data: unknown;
  /** The HTTP status the reply travels with: 200 unless the transport says otherwise. */
  readonly httpStatus: number;

  constructor(code: number, message: string, data?: unknown, httpStatus = 200) {
    super(message);
    this.name = 'RpcFailure';
    this.code = code;
    this.data = data;
    this.httpStatus = httpStatus;
  }
}
