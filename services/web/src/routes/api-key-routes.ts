import { DEFAULT_CREDENTIAL_CHOICES, kindOfCallError, TOOLSET_NAMES } from '@sheetgate/proto';
import {
  isUrlSafeId,
  type Route,
  route,
  setBrowserCookie,
  singleQueryValue,
} from '@sheetgate/service-runtime';
import { z } from 'zod';
import { formGuard } from '../forms/form-guard.ts';
import { choicesFromForm } from '../html/credential-choices.ts';
import { revokeKeyPage } from '../pages/confirm-pages.ts';
import type { CreateKeyForm } from '../pages/dashboard-page.ts';
import { choiceFields, isPlausibleId, text, tokenForm } from './dashboard-forms.ts';
import { type DashboardDeps, dashboardRenderer, signedIn } from './dashboard-view.ts';
import { sendPage, sessionCookieOf } from './request-values.ts';

/** Nonces of "Create API key" forms already answered in this browser (see POST /dashboard/api-keys). */
const SENT_FORMS_COOKIE = 'sg_sent_key_forms';
const SENT_FORMS_KEPT = 5;
const DAY_MS = 86_400_000;

/** The dashboard's API keys: creating one (its secret shown once), and revoking one. */
export function apiKeyRoutes(deps: DashboardDeps): Route[] {
  const { accounts, formTokens } = deps;
  const secureCookies = new URL(deps.baseUrl).protocol === 'https:';
  const refuseForged = formGuard(deps);
  const renderDashboard = dashboardRenderer(deps);

  const apiKeysPage = route({
    method: 'GET',
    path: '/dashboard/api-keys',
    handle(ctx) {
      ctx.status = 303;
      ctx.redirect('/dashboard');
    },
  });

  /**
   * Creates a key and shows its secret in this response only (no redirect could carry it without
   * putting it in a URL or storing it). Reloading this page re-sends the form: its nonce, remembered
   * in a cookie once answered, turns the re-send into a plain dashboard instead of a second key.
   * What the person typed goes to auth as typed: auth alone checks it, and its refusal is shown on
   * the form, which keeps the person's input.
   */
  const createKey = route({
    method: 'POST',
    path: '/dashboard/api-keys',
    form: z.object({
      ...tokenForm,
      // The page sends one; a form with several is answered as one without (no re-send guard).
      nonce: z.array(z.string()),
      name: text,
      expires: text,
      expiry_date: text,
      access: text,
      // One per checked box. The page's form also says it offered the boxes, so that none checked
      // (an empty choice, which auth refuses) differs from a post that never saw them (no choice:
      // auth gives the key every set, as for keys made before toolsets).
      toolsets: z.array(z.string()).optional(),
      toolsets_offered: text,
      // The two choices, offered the same way: without choices_offered auth gives the defaults.
      ...choiceFields,
      choices_offered: text,
    }),
    checkForgery: refuseForged('create-api-key'),
    async handle(ctx, { form }) {
      const session = await signedIn(ctx, accounts);
      if (!session) return;
      // Nonces are ours (base64url); anything else is ignored rather than written into a cookie.
      const [sentNonce] = form.nonce.length === 1 ? form.nonce : [];
      const nonce = isUrlSafeId(sentNonce) ? sentNonce : '';
      const sent = (ctx.cookies.get(SENT_FORMS_COOKIE) ?? '').split('.').filter(isUrlSafeId);
      if (nonce && sent.includes(nonce))
        return renderDashboard(ctx, session, { notice: 'key_already_created' });

      const createForm: CreateKeyForm = {
        name: form.name ?? '',
        expires: form.expires ?? 'never',
        expiryDate: form.expiry_date ?? '',
        access: form.access === 'read' ? 'read' : 'write',
        // Echoed back on a refusal as what the key would have had: a post without the boxes gets every set.
        toolsets: form.toolsets_offered ? (form.toolsets ?? []) : TOOLSET_NAMES,
        choices: form.choices_offered ? choicesFromForm(form) : { ...DEFAULT_CREDENTIAL_CHOICES },
      };
      const toolsetChoice = form.toolsets_offered ? { names: [...createForm.toolsets] } : undefined;
      let created: Awaited<ReturnType<typeof accounts.createApiKey>>;
      try {
        created = await accounts.createApiKey({
          sessionCookie: session.cookie,
          name: createForm.name,
          scopes: createForm.access === 'read' ? ['sheets:read'] : ['sheets:read', 'sheets:write'],
          expires: createForm.expires,
          expiresAt: createForm.expiryDate,
          toolsets: toolsetChoice,
          choices: form.choices_offered ? createForm.choices : undefined,
        });
      } catch (error) {
        // Auth's INVALID_ARGUMENT messages are written to be shown (proto/README.md).
        if (kindOfCallError(error) === 'invalid_argument') {
          const refused = (error as { details?: string }).details || 'These values were refused.';
          return renderDashboard(ctx, session, { createForm: { ...createForm, error: refused } }, 400);
        }
        throw error;
      }
      if (nonce) {
        setBrowserCookie(ctx, SENT_FORMS_COOKIE, [...sent, nonce].slice(-SENT_FORMS_KEPT).join('.'), {
          path: '/dashboard',
          secure: secureCookies,
          maxAge: DAY_MS,
        });
      }
      await renderDashboard(ctx, session, { created: { key: created.key!, secret: created.secret } }, 201);
    },
  });

  const confirmRevoke = route({
    method: 'GET',
    path: '/dashboard/api-keys/revoke',
    query: z.object({ key: singleQueryValue }),
    async handle(ctx, { query }) {
      const session = await signedIn(ctx, accounts);
      if (!session) return;
      const { keys } = await accounts.listApiKeys({ sessionCookie: session.cookie });
      const key = keys.find((candidate) => candidate.id === query.key && !candidate.revokedAt);
      if (!key) {
        ctx.status = 303;
        ctx.redirect('/dashboard?notice=nothing_to_revoke');
        return;
      }
      sendPage(ctx, revokeKeyPage(key, formTokens.issue('revoke-api-key', session.cookie), session.account));
    },
  });

  const revokeKey = route({
    method: 'POST',
    path: '/dashboard/api-keys/revoke',
    form: z.object({ ...tokenForm, key: text }),
    checkForgery: refuseForged('revoke-api-key'),
    async handle(ctx, { form }) {
      const sessionCookie = sessionCookieOf(ctx);
      const { revoked } = isPlausibleId(form.key)
        ? await accounts.revokeApiKey({ sessionCookie, keyId: form.key })
        : { revoked: false };
      ctx.status = 303;
      ctx.redirect(`/dashboard?notice=${revoked ? 'key_revoked' : 'nothing_to_revoke'}`);
    },
  });

  return [apiKeysPage, createKey, confirmRevoke, revokeKey];
}
