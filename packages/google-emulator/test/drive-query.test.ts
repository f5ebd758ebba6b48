import { describe, expect, it } from 'vitest';
import type { DriveFile } from '../src/contracts.ts';
import { applyFieldMask, parseFieldMask } from '../src/drive/fields.ts';
import { parseFileQuery } from '../src/drive/query.ts';

const file = (name: string, extra: Partial<DriveFile> = {}): DriveFile => ({
  id: name,
  name,
  mimeType: 'text/plain',
  ownerEmail: 'alice@example.com',
  createdTime: '2024-01-01T00:00:00.000Z',
  modifiedTime: '2024-01-01T00:00:00.000Z',
  trashed: false,
  parents: [],
  appClientIds: new Set(),
  ...extra,
});
const matches = (q: string, each: DriveFile) => parseFileQuery(q)(each, { callerEmail: 'alice@example.com' });

describe('Drive q grammar (ref-search-terms)', () => {
  it('binds and tighter than or, and not tightest', () => {
    const a = file('a', { trashed: true });
    expect(matches("name = 'x' and trashed = true or name = 'a'", a)).toBe(true);
    expect(matches("name = 'a' and (trashed = false or name = 'x')", a)).toBe(false);
    expect(matches("not trashed = false and name = 'a'", a)).toBe(true);
    expect(matches("not (name = 'a' or name = 'b')", a)).toBe(false);
  });

  it('unescapes quotes and backslashes in strings', () => {
    expect(matches("name = 'It\\'s a \\\\ path'", file("It's a \\ path"))).toBe(true);
    expect(matches("name = 'It\\'s'", file('Its'))).toBe(false);
  });

  it('matches name contains on word prefixes only, case-insensitively', () => {
    expect(matches("name contains 'hello'", file('HelloWorld'))).toBe(true);
    expect(matches("name contains 'world'", file('HelloWorld'))).toBe(false);
    expect(matches("name contains 'q3 plan'", file('The Q3 plan.xlsx'))).toBe(true);
    expect(matches("name contains 'plan'", file('2024-plan'))).toBe(true);
  });

  it('compares times as instants and owners with me', () => {
    const f = file('t', { modifiedTime: '2024-06-01T12:00:00.000Z' });
    expect(matches("modifiedTime > '2024-06-01T11:59:59Z'", f)).toBe(true);
    expect(matches("modifiedTime <= '2024-06-01T13:00:00+01:00'", f)).toBe(true);
    expect(matches("'me' in owners", f)).toBe(true);
    expect(matches("'bob@example.com' in owners", f)).toBe(false);
  });

  it('names what is wrong and where', () => {
    expect(() => parseFileQuery("name = 'a' or")).toThrow(/end of the query/);
    expect(() => parseFileQuery("name ~ 'a'")).toThrow(/unexpected "~" at character 6/);
    expect(() => parseFileQuery("owner = 'a'")).toThrow(/unknown search term "owner"/);
    expect(() => parseFileQuery("trashed contains 'a'")).toThrow(/does not support the operator "contains"/);
    expect(() => parseFileQuery("modifiedTime > 'yesterday'")).toThrow(/RFC 3339/);
  });
});

describe('fields masks', () => {
  it('selects nested fields, paths and *', () => {
    const value = {
      kind: 'k',
      files: [{ id: '1', name: 'n', owners: [{ emailAddress: 'e', me: true }] }],
      next: 'x',
    };
    const known = {};
    expect(applyFieldMask(value, parseFieldMask('files(id, owners(emailAddress)) , kind'), known)).toEqual({
      kind: 'k',
      files: [{ id: '1', owners: [{ emailAddress: 'e' }] }],
    });
    expect(applyFieldMask(value, parseFieldMask('files/name'), known)).toEqual({ files: [{ name: 'n' }] });
    expect(applyFieldMask(value, parseFieldMask('*'), known)).toEqual(value);
    expect(() => parseFieldMask('files(id')).toThrow(/Invalid field selection/);
  });
});
