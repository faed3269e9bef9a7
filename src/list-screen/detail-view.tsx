import { Button, ErrorBlock, Skeleton } from 'antd-mobile';
import { useQuery } from '@tanstack/react-query';
import { useEffect } from 'react';
import { MESSAGES } from './conventions';
import { FieldValue } from './field-value';
import { useRevealWrap, type RevealTarget } from './reveal-field';
import { ScreenModal } from './screen-modal';
import type { FieldDef, Row, ScreenDef } from './types';
import { showToast } from '../lib/feedback';

/**
 * A record's fields as label and value lines: the detail modal's body, and
 * what a review shows of the record. With `reveal`, a masked ID number or
 * phone carries 查看 for a holder of pii:view (reveal-field.tsx).
 */
export function DetailLines<R extends Row>({ fields, row, reveal }: { fields: FieldDef<R>[]; row: R; reveal?: RevealTarget }) {
  const wrap = useRevealWrap(reveal);
  return (
    <dl className="dv">
      {fields.map((f) => (
        <div className="dv-row" key={f.name}>
          <dt className="dv-label">{f.label}</dt>
          <dd className="dv-value">
            {wrap(f.revealColumn ?? f.dataIndex ?? f.name, f.label, (row as Record<string, unknown>)[f.dataIndex ?? f.name], <FieldValue field={f} row={row} variant="detail" />)}
          </dd>
        </div>
      ))}
    </dl>
  );
}

/** Detail of one row: fetched when the screen has a detail call, else the list row itself. */
export function DetailView<R extends Row>({ def, row, open, onClose }: { def: ScreenDef<R>; row: R; open: boolean; onClose: () => void }) {
  const detail = def.detail!;
  const id = (row as Record<string, unknown>)[def.rowKey];
  const q = useQuery({
    queryKey: ['detail', def.key, id],
    queryFn: () => detail.fetch!(row),
    enabled: !!detail.fetch && open,
    retry: false,
  });
  useEffect(() => {
    if (q.isError) showToast({ icon: 'fail', content: MESSAGES.detailFail });
  }, [q.isError]);

  const data = detail.fetch ? q.data : row;
  const fields = def.fields.filter((f) => !f.hideInDetail);

  return (
    <ScreenModal open={open} title={detail.title ?? `${def.title}详情`} onClose={onClose} width={detail.width ?? 560}>
      {detail.fetch && q.isLoading ? (
        <Skeleton.Paragraph lineCount={6} animated />
      ) : detail.fetch && q.isError ? (
        <ErrorBlock status="default" title={MESSAGES.detailFail} description={q.error instanceof Error ? q.error.message : undefined}>
          <Button size="small" color="primary" fill="outline" onClick={() => void q.refetch()}>
            重试
          </Button>
        </ErrorBlock>
      ) : data ? (
        detail.render ? (
          detail.render(data)
        ) : (
          <DetailLines fields={fields} row={data} reveal={def.reveal && typeof id === 'number' ? { record: def.reveal, id } : undefined} />
        )
      ) : null}
    </ScreenModal>
  );
}
