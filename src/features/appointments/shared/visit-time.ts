import { formatInZone } from '../../../../domain/time';

/** Today in park time, 'YYYY-MM-DD HH:mm:ss': the visit rules take it so a phone in another zone judges days as the server does. */
export const parkNow = () => formatInZone(new Date());

/** A visit time as lists show it: the day alone when it is the whole day's edge, else to the minute. */
export function visitTimeText(v: string | null | undefined, edge: 'begin' | 'end'): string {
  if (!v) return '?';
  const whole = edge === 'begin' ? / 00:00(:00)?$/ : / 23:59(:59)?$/;
  return whole.test(v) || v.length <= 10 ? v.slice(0, 10) : v.slice(0, 16);
}

/** A visit's validity as the list shows it. */
export function visitRange(begin: string | null | undefined, end: string | null | undefined): string {
  if (!begin && !end) return '-';
  return `${visitTimeText(begin, 'begin')} 至 ${visitTimeText(end, 'end')}`;
}
