/**
 * A response body as JSON, untyped on purpose: tests assert its shape with `expect`, which is
 * where a wrong shape should fail.
 */
// biome-ignore lint/suspicious/noExplicitAny: see above
export async function readJson(response: Response): Promise<any> {
  return response.json();
}
