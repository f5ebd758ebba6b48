import { canonicalToolsets } from '@sheetgate/proto';
import {
  HttpError,
  isSameOriginPost,
  type Logger,
  type Route,
  route,
  URL_SAFE_ID,
} from '@sheetgate/service-runtime';
import type { Context } from 'koa';
import type Provider from 'oidc-provider';
import { errors as oidcErrors } from 'oidc-provider';
import { z } from 'zod';
import type { AppChoices } from '../call-consent/app-choices.ts';
import type { AppToolsets } from '../connected-apps/app-toolsets.ts';
import { mcpResource } from '../oidc/resource.ts';
import { type CsrfTokens, formExpired } from './csrf.ts';
import { loginResult, requiredSignInAge, signInSatisfies } from './sign-in-age.ts';

/**
 * Who is signed in to the dashboard in this browser, if anyone, and when they signed in at Google
 * (the sessions library answers).
 */
export type SignedInUser = (
  ctx: Context,
) => Promise<{ userId: string; sessionId: string; signedInAt: Date } | undefined>;

const INTERACTION_PATH = '/api/auth/interaction/:uid';
const interactionParams = z.object({ uid: z.string().regex(URL_SAFE_ID) });
const consentForm = z.object({
  csrf: z.string().optional(),
  decision: z.string().optional(),
  // One per checked toolset box. The page also says it offered the boxes, so that none checked
  // differs from a form that never showed them (the person's earlier choice, if any, then stands).
  toolsets: z.array(z.string()).optional(),
  toolsets_offered: z.string().optional(),
  // The two choices (docs/design.md §11.10), checkboxes: present ("on") is yes, absent is no. As
  // with the toolsets, `choices_offered` tells "no" from a form that never showed them.
  choices_offered: z.literal('1').optional(),
  may_act_outbound: z.literal('on').optional(),
  may_destroy_unasked: z.literal('on').optional(),
});

/**
 * The provider's interactions, completed by auth so the provider's cookie checks hold (its
 * interaction cookie is scoped to /api/auth/interaction/<uid>):
 * - `GET /api/auth/interaction/:uid` — login: a browser with a dashboard session is signed in at
 *   once, as of its Google sign-in, unless the app asks for a more recent one (`prompt=login`,
 *   `max_age`): then it goes to Google again; without a session it goes to the web `/login` page
 *   (whose Google button returns here). Consent: to the web `/authorize` page.
 * - `POST /api/auth/interaction/:uid/consent` — the consent form's Allow / Deny, with CSRF token,
 *   bound to the signed-in user the interaction is for, and the toolsets and choices checked on it.
 */
export function interactionRoutes(deps: {
  provider: Provider;
  baseUrl: string;
  signedInUser: SignedInUser;
  csrf: CsrfTokens;
  logger: Logger;
  /** Keeps the toolsets chosen on the consent screen, which the app's access tokens then carry. */
  appToolsets: Pick<AppToolsets, 'choose'>;
  /** Keeps the choices made on the consent screen, which the MCP service reads on each call. */
  appChoices: Pick<AppChoices, 'choose'>;
}): Route[] {
  const { provider, baseUrl, signedInUser, csrf, logger } = deps;
  const resource = mcpResource(baseUrl);

  async function details(ctx: Context, uid: string) {
    try {
      const interaction = await provider.interactionDetails(ctx.req, ctx.res);
      if (interaction.uid !== uid) throw new oidcErrors.SessionNotFound('interaction mismatch');
      return interaction;
    } catch (error) {
      if (error instanceof oidcErrors.SessionNotFound || error instanceof oidcErrors.InvalidRequest) {
        throw new HttpError(
          400,
          'interaction_expired',
          'this sign-in has expired or belongs to another browser: start again from your app',
        );
      }
      throw error;
    }
  }

  async function finish(
    ctx: Context,
    result: Parameters<Provider['interactionResult']>[2],
    mergeWithLastSubmission = false,
  ) {
    const returnTo = await provider.interactionResult(ctx.req, ctx.res, result, { mergeWithLastSubmission });
    ctx.status = 303;
    ctx.redirect(returnTo);
  }

  const showInteraction = route({
    method: 'GET',
    path: INTERACTION_PATH,
    params: interactionParams,
    async handle(ctx, { params: { uid } }) {
      ctx.set('cache-control', 'no-store');
      const interaction = await details(ctx, uid);
      if (interaction.prompt.name === 'login') {
        const user = await signedInUser(ctx);
        ctx.status = 303;
        if (!user) return ctx.redirect(`/login?interaction=${encodeURIComponent(uid)}`);
        if (signInSatisfies(interaction, user.signedInAt))
          return finish(ctx, loginResult(user.userId, user.signedInAt));
        // The app wants a more recent authentication than this session's: Google again, held to
        // the same age, coming back here.
        return ctx.redirect(
          `/api/auth/google/start?${new URLSearchParams({
            return_to: `/api/auth/interaction/${uid}`,
            max_age: String(requiredSignInAge(interaction) ?? 0),
          })}`,
        );
      }
      ctx.status = 303;
      ctx.redirect(`/authorize?interaction=${encodeURIComponent(uid)}`);
    },
  });

  const answerConsent = route({
    method: 'POST',
    path: `${INTERACTION_PATH}/consent`,
    params: interactionParams,
    form: consentForm,
    async handle(ctx, { params: { uid }, form }) {
      ctx.set('cache-control', 'no-store');
      if (!isSameOriginPost(ctx, baseUrl)) throw formExpired();
      if (!csrf.verify('consent', uid, form.csrf)) throw formExpired();
      const interaction = await details(ctx, uid);
      if (interaction.prompt.name !== 'consent')
        throw new HttpError(400, 'invalid_request', 'nothing to consent to');
      const user = await signedInUser(ctx);
      if (!user || user.userId !== interaction.session?.accountId) {
        throw new HttpError(
          403,
          'access_denied',
          'the consent must come from the signed-in account it is for',
        );
      }
      if (form.decision === 'deny') {
        logger.info({ clientId: interaction.params.client_id, userId: user.userId }, 'consent denied');
        return finish(ctx, { error: 'access_denied', error_description: 'the user denied the request' });
      }
      if (form.decision !== 'allow')
        throw new HttpError(400, 'invalid_request', 'decision must be allow or deny');
      const clientId = String(interaction.params.client_id);
      const toolsets = form.toolsets_offered ? canonicalToolsets(form.toolsets ?? []) : undefined;
      if (toolsets === undefined && form.toolsets_offered)
        throw new HttpError(400, 'invalid_request', 'toolsets must be names the consent screen offers');
      if (toolsets?.length === 0) {
        // Nothing to allow: the same screen again, saying so (its CSRF token is issued anew).
        ctx.status = 303;
        return ctx.redirect(
          `/authorize?${new URLSearchParams({ interaction: uid, problem: 'no-toolsets' })}`,
        );
      }

      const promptDetails = interaction.prompt.details as {
        missingOIDCScope?: string[];
        missingOIDCClaims?: string[];
        missingResourceScopes?: Record<string, string[]>;
      };
      const grant = interaction.grantId
        ? await provider.Grant.find(interaction.grantId)
        : new provider.Grant({ accountId: user.userId, clientId });
      if (!grant)
        throw new HttpError(400, 'interaction_expired', 'the grant being extended no longer exists');
      if (promptDetails.missingOIDCScope?.length)
        grant.addOIDCScope(promptDetails.missingOIDCScope.join(' '));
      if (promptDetails.missingOIDCClaims?.length) grant.addOIDCClaims(promptDetails.missingOIDCClaims);
      for (const [indicator, scopes] of Object.entries(promptDetails.missingResourceScopes ?? {})) {
        if (indicator === resource) grant.addResourceScope(indicator, scopes.join(' '));
      }
      // Before the grant: the code this consent leads to is exchanged for tokens carrying the choice.
      if (toolsets) await deps.appToolsets.choose(user.userId, clientId, toolsets);
      const choices = form.choices_offered
        ? {
            mayActOutbound: form.may_act_outbound === 'on',
            mayDestroyUnasked: form.may_destroy_unasked === 'on',
          }
        : undefined;
      if (choices) await deps.appChoices.choose(user.userId, clientId, choices, 'consent');
      const grantId = await grant.save();
      logger.info({ clientId, userId: user.userId, toolsets, choices }, 'consent given');
      // With the login this request signed in with: `prompt=login` and `max_age` are checked again
      // when the authorization resumes, and would otherwise send the person back to sign in.
      return finish(ctx, { consent: { grantId } }, true);
    },
  });

  return [showInteraction, answerConsent];
}
