import { describe, expect, it } from 'vitest';
import { enumLabel, enums } from '../../domain/enums';
import { ALARM_NOTIFICATION_KINDS, isAlarmNotification, NotificationKind } from '../../domain/notifications';
import { allPermissionCodes, menuRoutes } from '../../domain/permissions';
import { builtScreenRoutes } from '../../domain/screens';
import { ALARM_LISTS, AlarmLevel, alarmListOf, alarmLists } from '../../domain/stranded-kinds';

/** The alarm lists (车辆滞留告警, 人员滞留告警, 偏离路线告警) over one alarm table, told apart by kind and level. */
describe('alarm lists', () => {
  it('puts a route deviation in its own list and every other alarm in its kind’s stranded list', () => {
    expect(alarmListOf({ kind: 'car', level_type: AlarmLevel.ROUTE_DEVIATION })).toBe('deviation');
    for (const level of [AlarmLevel.VISIT_END, AlarmLevel.DWELL_LIMIT, AlarmLevel.BLACK_LISTED]) {
      expect(alarmListOf({ kind: 'car', level_type: level })).toBe('car');
      expect(alarmListOf({ kind: 'person', level_type: level })).toBe('person');
    }
    expect(ALARM_LISTS.filter((l) => alarmLists[l].deviation)).toEqual(['deviation']);
  });

  it('declares each list with a built screen of the menu and codes of the tree; route deviations with the vehicle alarms’ codes', () => {
    const screens = new Map([...menuRoutes.values()].map((m) => [m.route, m.name]));
    for (const list of ALARM_LISTS) {
      const k = alarmLists[list];
      expect(k.key).toBe(list);
      expect(screens.get(k.screen), k.screen).toBe(k.noun);
      expect(builtScreenRoutes.has(k.screen), k.screen).toBe(true);
      expect(allPermissionCodes).toContain(k.list);
      expect(allPermissionCodes).toContain(k.deal);
    }
    expect(alarmLists.deviation).toMatchObject({ kind: 'car', list: alarmLists.car.list, deal: alarmLists.car.deal });
  });

  it('names every alarm level (告警类型), 偏离路线 among them', () => {
    for (const level of Object.values(AlarmLevel))
      expect(
        enums.strandedLevel.some((o) => o.value === level),
        String(level),
      ).toBe(true);
    expect(enumLabel('strandedLevel', AlarmLevel.ROUTE_DEVIATION)).toBe('偏离路线');
  });

  it('counts the route deviation’s notifications among the alarms, by a kind of their own', () => {
    expect(ALARM_NOTIFICATION_KINDS).toEqual([NotificationKind.STRANDED_ALARM, NotificationKind.ROUTE_DEVIATION]);
    expect(isAlarmNotification(NotificationKind.ROUTE_DEVIATION)).toBe(true);
    expect(isAlarmNotification(NotificationKind.NOTICE)).toBe(false);
    expect(isAlarmNotification(NotificationKind.TASK_ASSIGNED)).toBe(false);
  });
});
