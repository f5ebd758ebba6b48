import { z } from 'zod';

export const text = z.string().optional();

/** Every dashboard form carries web's CSRF token. */
export const tokenForm = { csrf: text };

/** A credential's two choices as checkboxes send them: "on" when ticked, absent otherwise. */
const checkbox = z.literal('on').optional();
export const choiceFields = { may_act_outbound: checkbox, may_destroy_unasked: checkbox };

/**
 * An id that could name a key, an app or a chosen file: key ids are UUIDs, client ids random
 * strings or (Client ID Metadata Documents) https URLs. Anything empty, huge or with control
 * characters names nothing: answered here without asking auth (which refuses it too).
 */
export const isPlausibleId = (value: string | undefined): value is string =>
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
  value !== undefined && value.length > 0 && value.length <= 2048 && !/[\u0000-\u001f\u007f]/.test(value);
