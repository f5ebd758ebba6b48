import { createLogger } from '@sheetgate/service-runtime';
import { createTestDatabase, type TestDatabase } from '@sheetgate/test-harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyringSpec, parseKeyring } from '../src/crypto/keyring.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { createDatabasePool, type DatabasePool } from '../src/db/pool.ts';
import { createGoogleConnectionLibrary } from '../src/google/index.ts';
import { createUserLibrary } from '../src/users/index.ts';

const SPREADSHEETS = 'https://www.googleapis.com/auth/spreadsheets';
const DRIVE_READONLY = 'https://www.googleapis.com/auth/drive.readonly';
const DRIVE_FILE = 'https://www.googleapis.com/auth/drive.file';
const FULL = ['openid', SPREADSHEETS, DRIVE_READONLY, DRIVE_FILE];

let database: TestDatabase;
let pool: DatabasePool;

beforeAll(async () => {
  database = await createTestDatabase();
  await migrateToLatest(database.url, createLogger({ service: 'test', level: 'silent' }));
  pool = createDatabasePool(database.url, 4);
});
afterAll(async () => {
  await pool?.end();
  await database?.close();
});

const newUser = (sub: string) =>
  createUserLibrary(pool).upsertFromGoogle({ sub, email: `${sub}@example.com` });

describe('Google connections', () => {
  it('bind the sealed refresh token to its user: a row copied onto another user does not decrypt', async () => {
    const connections = createGoogleConnectionLibrary({
      pool,
      keyring: parseKeyring(generateKeyringSpec('a')),
    });
    const [one, two] = [await newUser('5001'), await newUser('5002')];
    await connections.save({
      userId: one.id,
      googleSubject: '5001',
      email: 'x',
      refreshToken: 'rt-one',
      grantedScopes: FULL,
    });
    await connections.save({
      userId: two.id,
      googleSubject: '5002',
      email: 'y',
      refreshToken: 'rt-two',
      grantedScopes: FULL,
    });
    await pool.query(
      `UPDATE google_connections SET refresh_token_encrypted =
         (SELECT refresh_token_encrypted FROM google_connections WHERE user_id = $1) WHERE user_id = $2`,
      [one.id, two.id],
    );
    const moved = await connections.findSealed(two.id);
    expect(() => connections.unsealRefreshToken(moved!)).toThrow(/failed authentication/);
  });

  it('keep the stored refresh token when a reconnect brings none, and mark partial grants', async () => {
    const connections = createGoogleConnectionLibrary({
      pool,
      keyring: parseKeyring(generateKeyringSpec('a')),
    });
    const user = await newUser('5101');
    const first = await connections.save({
      userId: user.id,
      googleSubject: '5101',
      email: 'z',
      refreshToken: 'rt-1',
      grantedScopes: ['openid', SPREADSHEETS, DRIVE_FILE],
    });
    expect(first).toMatchObject({ partial: true, status: 'connected' });
    const second = await connections.save({
      userId: user.id,
      googleSubject: '5101',
      email: 'z',
      refreshToken: undefined,
      grantedScopes: FULL,
    });
    expect(second).toMatchObject({ partial: false, status: 'connected' });
    expect(connections.unsealRefreshToken((await connections.findSealed(user.id))!)).toBe('rt-1');
    expect(second).not.toHaveProperty('refreshTokenEncrypted');

    const none = await newUser('5102');
    const without = await connections.save({
      userId: none.id,
      googleSubject: '5102',
      email: 'w',
      refreshToken: null,
      grantedScopes: FULL,
    });
    expect(without.status).toBe('reauth_required');
  });

  it('re-seal refresh tokens under the current key after rotation, so the old key can be retired', async () => {
    const oldSpec = generateKeyringSpec('old');
    const before = createGoogleConnectionLibrary({ pool, keyring: parseKeyring(oldSpec) });
    const user = await newUser('5201');
    await before.save({
      userId: user.id,
      googleSubject: '5201',
      email: 'v',
      refreshToken: 'rt-rotate',
      grantedScopes: FULL,
    });

    const newSpec = generateKeyringSpec('new');
    const rotated = createGoogleConnectionLibrary({ pool, keyring: parseKeyring(`${newSpec},${oldSpec}`) });
    // Rows of the other tests were sealed with keys this ring does not hold: left alone.
    const first = await rotated.resealWithCurrentKey();
    expect(first.resealed).toBe(1);
    expect(await rotated.resealWithCurrentKey()).toEqual({ resealed: 0, unreadable: first.unreadable });

    const onlyNew = createGoogleConnectionLibrary({ pool, keyring: parseKeyring(newSpec) });
    const sealed = await onlyNew.findSealed(user.id);
    expect(sealed!.refreshTokenEncrypted).toMatch(/^v1\.new\./);
    expect(onlyNew.unsealRefreshToken(sealed!)).toBe('rt-rotate');
  });

  it('count each row once when two replicas re-seal at the same time', async () => {
    const oldSpec = generateKeyringSpec('old2');
    const before = createGoogleConnectionLibrary({ pool, keyring: parseKeyring(oldSpec) });
    for (const sub of ['5301', '5302', '5303', '5304']) {
      const user = await newUser(sub);
      await before.save({
        userId: user.id,
        googleSubject: sub,
        email: sub,
        refreshToken: `rt-${sub}`,
        grantedScopes: FULL,
      });
    }
    const ring = `${generateKeyringSpec('new2')},${oldSpec}`;
    const replicas = [1, 2].map(() => createGoogleConnectionLibrary({ pool, keyring: parseKeyring(ring) }));
    // Both list the same rows; each row is replaced by whichever replica gets there first.
    const counts = await Promise.all(replicas.map((replica) => replica.resealWithCurrentKey()));
    expect(counts[0]!.resealed + counts[1]!.resealed).toBe(4);
  });
});
