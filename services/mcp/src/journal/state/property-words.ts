import type { sheets_v4 } from 'googleapis';
import type { PropertyField } from './state-diff.ts';
import { counted, quoted, tabNamed } from './state-words.ts';

type Properties = sheets_v4.Schema$SheetProperties;

/** The tab's property as a thing undo finds changed since: `the frozen rows of the tab "Sheet1"`. */
export function propertyNoun(field: PropertyField, title: string): string {
  const tab = tabNamed(title);
  switch (field) {
    case 'title':
      return `the title of ${tab}`;
    case 'index':
      return `the position of ${tab}`;
    case 'hidden':
      return `whether ${tab} is hidden`;
    case 'tabColorStyle':
      return `the colour of ${tab}`;
    case 'rightToLeft':
      return `the direction of ${tab}`;
    case 'gridProperties.frozenRowCount':
      return `the frozen rows of ${tab}`;
    case 'gridProperties.frozenColumnCount':
      return `the frozen columns of ${tab}`;
    case 'gridProperties.hideGridlines':
      return `the gridlines of ${tab}`;
  }
}

function frozen(noun: 'row' | 'column', was: number, is: number, tab: string) {
  return {
    did:
      is === 0
        ? `unfroze ${counted(was, noun)} of ${tab}`
        : `froze ${counted(is, noun)} of ${tab}${was > 0 ? ` (was ${was})` : ''}`,
    undo: was === 0 ? `unfreeze the ${noun}s of ${tab}` : `freeze ${counted(was, noun)} of ${tab}`,
  };
}

/**
 * What a change did to one property of a tab (`did`, for the activity log) and what undo does to
 * set it back (`undo`): `renamed the tab "Totals" to "Summary"` and `rename the tab "Summary" back
 * to "Totals"`; `froze 1 row of the tab "Expenses"` and `unfreeze the rows of the tab "Expenses"`.
 * `title` is the tab's title as the change left it; `position`, where undo puts a moved tab back.
 */
export function propertyWords(
  field: PropertyField,
  was: Properties,
  is: Properties,
  title: string,
  position = (was.index ?? 0) + 1,
): { did: string; undo: string } {
  const tab = tabNamed(title);
  switch (field) {
    case 'title':
      return {
        did: `renamed the tab ${quoted(was.title)} to ${quoted(is.title)}`,
        undo: `rename the tab ${quoted(is.title)} back to ${quoted(was.title)}`,
      };
    case 'index':
      return {
        did: `moved ${tab} from position ${(was.index ?? 0) + 1} to ${(is.index ?? 0) + 1}`,
        undo: `move ${tab} back to position ${position}`,
      };
    case 'hidden':
      return is.hidden
        ? { did: `hid ${tab}`, undo: `show ${tab} again` }
        : { did: `showed ${tab}`, undo: `hide ${tab} again` };
    case 'tabColorStyle':
      if (!is.tabColorStyle)
        return { did: `removed the colour of ${tab}`, undo: `add back the colour of ${tab}` };
      return was.tabColorStyle
        ? { did: `changed the colour of ${tab}`, undo: `put back the colour of ${tab} as it was` }
        : { did: `coloured ${tab}`, undo: `remove the colour of ${tab}` };
    case 'rightToLeft': {
      const direction = (rightToLeft: boolean | null | undefined) =>
        rightToLeft ? 'right to left' : 'left to right';
      return {
        did: `set ${tab} ${direction(is.rightToLeft)}`,
        undo: `set ${tab} ${direction(was.rightToLeft)} again`,
      };
    }
    case 'gridProperties.frozenRowCount':
      return frozen(
        'row',
        was.gridProperties?.frozenRowCount ?? 0,
        is.gridProperties?.frozenRowCount ?? 0,
        tab,
      );
    case 'gridProperties.frozenColumnCount':
      return frozen(
        'column',
        was.gridProperties?.frozenColumnCount ?? 0,
        is.gridProperties?.frozenColumnCount ?? 0,
        tab,
      );
    case 'gridProperties.hideGridlines':
      return is.gridProperties?.hideGridlines
        ? { did: `hid the gridlines of ${tab}`, undo: `show the gridlines of ${tab} again` }
        : { did: `showed the gridlines of ${tab}`, undo: `hide the gridlines of ${tab} again` };
  }
}
