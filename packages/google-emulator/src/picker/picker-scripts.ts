import { readFileSync } from 'node:fs';

const read = (file: string) => readFileSync(new URL(file, import.meta.url), 'utf8');

/** The stand-in for Google's `api.js`: `gapi.load('picker')` and the `google.picker` API. */
export const PICKER_STAND_IN_SCRIPT = read('./stand-in-api.js');
/** The page the stand-in frames: the signed-in account's spreadsheets, to select. */
export const PICKER_PAGE = read('./picker-page.html');
export const PICKER_PAGE_SCRIPT = read('./picker-page.js');
