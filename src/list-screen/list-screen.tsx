import { ErrorBlock } from 'antd-mobile';
import { useState } from 'react';
import { useCan } from '../lib/me';
import { useIsDesktop } from '../lib/use-media';
import { DesktopList } from './desktop-list';
import { PhoneList } from './phone-list';
import { useListActions, useListOverlay } from './use-list-actions';
import { useListData } from './use-list-data';
import type { Row, ScreenDef } from './types';
import './list-screen.css';

/**
 * The one generic list screen (DESIGN.md §6): every shared convention of
 * spec 000 §1 lives here once, driven by a ScreenDef. The data (use-list-data),
 * the actions (use-list-actions) and the two layouts (desktop-list, phone-list)
 * each have their file; this one joins them.
 */
export function ListScreen<R extends Row>({ def }: { def: ScreenDef<R> }) {
  const desktop = useIsDesktop();
  const can = useCan();
  const canList = can(def.list.permission);
  const ui = useListOverlay<R>();
  const [filterOpen, setFilterOpen] = useState(false);
  const [sheetRow, setSheetRow] = useState<R | null>(null);
  const data = useListData(def, { enabled: canList, paused: !!ui.overlay || filterOpen || !!sheetRow || ui.confirming });
  const actions = useListActions(def, data, ui, { can, desktop });

  if (!canList) {
    return (
      <div className="ls ls--blocked">
        <ErrorBlock status="disconnected" title="没有查询权限" description="当前账号没有此列表的查询权限，请联系管理员。" />
      </div>
    );
  }
  if (desktop) return <DesktopList def={def} data={data} ui={ui} actions={actions} />;
  return <PhoneList def={def} data={data} ui={ui} actions={actions} sheets={{ filterOpen, setFilterOpen, sheetRow, setSheetRow }} />;
}
