import { Button, SearchBar } from 'antd-mobile';
import { useMemo, useState } from 'react';
import { ICON_PAGE_SIZE, iconSet, searchIcons } from '../../../../domain/icons';
import { IconGlyph } from '../../../components/icon-glyph';
import { IconGrid } from '../../../components/icon-grid';
import { ScreenModal } from '../../../list-screen';

const titleOf = new Map<string, string>(iconSet.map((i) => [i.code, i.title]));

export interface IconPickerProps {
  value: string | null;
  onChange: (code: string | null) => void;
  disabled?: boolean;
  id?: string;
}

/**
 * 图标: chosen from the icon gallery's own set and grid (domain/icons.ts,
 * src/components/icon-grid.tsx), searched here without the network.
 */
export function IconPicker({ value, onChange, disabled, id }: IconPickerProps) {
  const [open, setOpen] = useState(false);
  const [search, setSearch] = useState('');
  const [page, setPage] = useState(1);
  const result = useMemo(() => searchIcons(search, page, ICON_PAGE_SIZE), [search, page]);
  const known = value ? titleOf.get(value) : undefined;

  return (
    <div className="ipk">
      <button type="button" id={id} className="ipk-current" disabled={disabled} onClick={() => setOpen(true)} aria-label={value ? `图标 ${value}，点击更换` : '选择图标'}>
        {value ? (
          <>
            <span className="ipk-glyph" aria-hidden>
              <IconGlyph code={value} fallback={<span className="ipk-glyph__wait" />} />
            </span>
            <span className="ipk-text">
              <span className="ipk-code">{value}</span>
              <span className="ipk-title">{known ?? '不在图标库中'}</span>
            </span>
          </>
        ) : (
          <span className="ipk-placeholder">请从图标库中选择图标</span>
        )}
      </button>
      {!disabled && (
        <span className="ipk-actions">
          <Button size="mini" color="primary" fill="outline" onClick={() => setOpen(true)}>
            {value ? '更换' : '选择'}
          </Button>
          {value && (
            <Button size="mini" fill="none" onClick={() => onChange(null)}>
              清除
            </Button>
          )}
        </span>
      )}
      <ScreenModal open={open} title="选择图标" width={820} onClose={() => setOpen(false)}>
        <div className="ipk-sheet">
          <SearchBar
            placeholder="搜索图标名称或编码"
            value={search}
            onChange={(v) => {
              setSearch(v);
              setPage(1);
            }}
            aria-label="搜索图标"
          />
          <IconGrid
            items={result.data}
            total={result.totalCount}
            page={page}
            pageSize={ICON_PAGE_SIZE}
            onPage={setPage}
            selected={value}
            verb="选择"
            onPick={(i) => {
              onChange(i.code);
              setOpen(false);
            }}
          />
        </div>
      </ScreenModal>
    </div>
  );
}
