import { DownOutline, RightOutline } from 'antd-mobile-icons';
import { enums } from '../../../../domain/enums';
import { PERMISSION_TYPE, UNRELEASED, type PermissionRow, type VisibleTreeRow } from '../../../../domain/schemas/permission';
import { IconGlyph } from '../../../components/icon-glyph';

const typeLabel = new Map(enums.permissionType.map((o) => [o.value, o.label]));

/** A node's name as both layouts show it: indented by depth, its fold caret, icon, and the 自定义 / 未上线 tags. */
export function NameCell({ v, searching, unreleased, onToggle }: { v: VisibleTreeRow<PermissionRow>; searching: boolean; unreleased: boolean; onToggle: (id: number) => void }) {
  return (
    <span className="pp-name" style={{ paddingLeft: v.depth * 22 }}>
      {v.hasChildren ? (
        <button type="button" className="pp-caret" aria-label={`${v.open ? '折叠' : '展开'}${v.row.name}`} aria-expanded={v.open} disabled={searching} onClick={() => onToggle(v.row.permission_id)}>
          {v.open ? <DownOutline /> : <RightOutline />}
        </button>
      ) : (
        <span className="pp-caret pp-caret--leaf" aria-hidden />
      )}
      <span className="pp-glyph" aria-hidden>
        {v.row.icon ? <IconGlyph code={v.row.icon} fallback={<span className="pp-glyph__none" />} /> : <span className="pp-glyph__none" />}
      </span>
      <span className={`pp-label${v.row.type === PERMISSION_TYPE.DIRECTORY ? ' pp-label--dir' : ''}`}>{v.row.name}</span>
      {v.row.builtin === 0 && (
        <span className="pp-custom" title="园区自行添加的权限，产品的功能不检查它">
          自定义
        </span>
      )}
      {unreleased && (
        <span className="pp-unreleased" title={UNRELEASED.hint}>
          {UNRELEASED.label}
        </span>
      )}
    </span>
  );
}

export const TypeTag = ({ row }: { row: PermissionRow }) => <span className={`pp-type pp-type--${row.type}`}>{typeLabel.get(row.type)}</span>;
