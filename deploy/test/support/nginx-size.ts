/**
 * Bytes of an nginx size (`client_max_body_size`, ingress-nginx's `proxy-body-size`): a number
 * with an optional k or m, in units of 1024 (nginx's "Measurement units"); NaN when it is not one.
 */
export function nginxSize(size: string | undefined): number {
  const match = /^(\d+)([kKmM]?)$/.exec(size ?? '');
  if (!match) return Number.NaN;
  const unit = { '': 1, k: 1024, m: 1024 * 1024 }[match[2]!.toLowerCase() as '' | 'k' | 'm'];
  return Number(match[1]) * unit;
}
