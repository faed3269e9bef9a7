import { DEFAULT_PARK_TZ, formatInZone } from '../../../domain/time';

const WEEKDAYS = ['星期日', '星期一', '星期二', '星期三', '星期四', '星期五', '星期六'];

/** The big screen's clock (spec 002 §2): '2026/11/27 星期五 21:59:01', in park time. */
export function clockText(instant: number, timeZone: string = DEFAULT_PARK_TZ): string {
  const stamp = formatInZone(instant, timeZone);
  const day = stamp.slice(0, 10);
  const weekday = WEEKDAYS[new Date(`${day}T00:00:00Z`).getUTCDay()];
  return `${day.replaceAll('-', '/')} ${weekday} ${stamp.slice(11)}`;
}
