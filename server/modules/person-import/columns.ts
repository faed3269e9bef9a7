import { personApplicationLabels } from '../../../domain/schemas/person-application';
import { defineColumns } from '../../core/xlsx-import';

/**
 * The persons' sheet of the zip: the person appointment form's fields, each
 * headed by its label in the form's catalogue (personApplicationLabels), as
 * the form asks them; the face photo comes from the zip, named by the ID number.
 */
export const personColumns = defineColumns(
  [
    { key: 'visitor_name', required: true, width: 12 },
    { key: 'visitor_gender', required: true, width: 8, table: 'gender' },
    { key: 'visitor_nation', required: false, width: 8 },
    { key: 'visitor_phone', required: true, width: 14 },
    { key: 'visitor_company', required: true, width: 26 },
    { key: 'visitor_address', required: false, width: 26 },
    { key: 'visitor_type', required: true, width: 12, table: 'personVisitorType' },
    { key: 'visitor_idcard_type', required: true, width: 24, table: 'idcardType' },
    { key: 'visitor_idcard', required: true, width: 22 },
    { key: 'visit_content', required: true, width: 24 },
    { key: 'visit_begin_time', required: true, width: 14, date: true },
    { key: 'visit_end_time', required: true, width: 14, date: true },
    { key: 'visit_area', required: true, width: 14, table: 'visitArea' },
    { key: 'interviewee_name', required: true, width: 12 },
    { key: 'interviewee_phone', required: true, width: 14 },
    { key: 'interviewee_depart_id', required: true, width: 28, lookup: 'department' },
  ],
  personApplicationLabels,
);

/** The template's example row reads this as 来访事由; a row that still does is skipped, so a template filled below it imports cleanly. */
export const EXAMPLE_CONTENT = '示例行，导入时自动忽略，可删除';
