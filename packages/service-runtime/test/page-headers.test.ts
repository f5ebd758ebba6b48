import { describe, expect, it } from 'vitest';
import { pageContentSecurityPolicy } from '../src/page-headers.ts';

const directives = (policy: string) => new Map(policy.split('; ').map((d) => [d.split(' ')[0]!, d]));

describe('the page CSP', () => {
  it('loads nothing from another site, allows no framing and no inline script', () => {
    const policy = directives(pageContentSecurityPolicy());
    expect(policy.get('default-src')).toBe("default-src 'none'");
    expect(policy.get('script-src')).toBe("script-src 'self'");
    expect(policy.get('frame-ancestors')).toBe("frame-ancestors 'none'");
    expect(policy.get('form-action')).toBe("form-action 'self'");
  });

  it('lets forms lead only to this site and the named targets, each once', () => {
    const policy = directives(pageContentSecurityPolicy(['https://app.example', 'cursor:', 'cursor:']));
    expect(policy.get('form-action')).toBe("form-action 'self' https://app.example cursor:");
  });
});
