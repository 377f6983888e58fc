import { randomBase62 } from '@quantum-chat/core/host';

/** Base 36 of the time in ms, fixed width: 9 digits last until the year 5188, and sort as text (`0-9` before `a-z`). */
const timeDigits = 9;

/**
 * A new usage id that sorts by creation time (`u_`, 9 time digits, 13 random base62
 * characters: 62¹³ ids per millisecond). Why: a random id lands each row of a group commit on
 * its own page of the usage-id index, so every commit rewrote one page per row (SQLite's WAL,
 * PostgreSQL's index); ids in time order share the index's last page.
 */
export function timeOrderedUsageId(time: number): string {
  return `u_${Math.max(0, Math.floor(time)).toString(36).padStart(timeDigits, '0')}${randomBase62(13)}`;
}
