import { drivingRouteApi, drivingRouteCreate, drivingRouteLabels, drivingRouteUpdate, routePublishOptions, RoutePublish, type DrivingRouteRow } from '../../../domain/schemas/driving-route';
import { defineScreen } from '../../list-screen';
import { BindDepartsModal } from './bind-departs-modal';
import { RoutePathInput } from './route-path-input';
import { RoutePointsModal } from './route-points-modal';
import { RouteViewModal } from './route-view-modal';
import { bindingsQuery } from './queries';
import { routeFormBody, routeFormValues } from './route-draft';

const { calls } = drivingRouteApi;
const dash = (v: string) => v || '-';

/**
 * 行车路线 (spec 001 "Vehicle entry routes", §6 carRoute:*): filters name and
 * publish state; actions bind departments, view or edit the route, view or
 * edit its points, delete. The form is the name, the publish state and the
 * map line editor with the points the line passes (RoutePathInput); a row's
 * tap shows the route read-only.
 */
export const drivingRoutesScreen = defineScreen<DrivingRouteRow>({
  key: 'vehicles.driving-routes',
  title: '行车路线',
  labels: drivingRouteLabels,
  list: { path: calls.list, permission: 'carRoute:list' },
  rowKey: 'id',
  card: { title: 'name', extra: 'publish' },
  // Binding lists who follows which route: a deleted route frees its departments.
  invalidates: [bindingsQuery.queryKey],
  fields: [
    { name: 'name', kind: 'text', width: 180 },
    { name: 'publish', kind: 'enum', options: routePublishOptions, tag: true, width: 90, search: { default: -1 } },
    { name: 'depart_names', kind: 'text', hideInSearch: true, hideInForm: true, width: 200, render: (r) => dash(r.depart_names) },
    { name: 'point_names', kind: 'text', hideInSearch: true, hideInForm: true, width: 220, render: (r) => dash(r.point_names) },
    { name: 'path', kind: 'custom', input: RoutePathInput, hideInSearch: true, hideInTable: true, hideInCard: true, hideInDetail: true, form: { required: true } },
    { name: 'update_time', kind: 'text', hideInSearch: true, hideInForm: true, hideInCard: true, width: 170 },
  ],
  toolbar: [{ key: 'add', label: '新增路线', type: 'create', permission: 'carRoute:add' }],
  rowActions: [
    { key: 'bind', label: '绑定部门', type: 'modal', permission: 'carRoute:bind', component: BindDepartsModal },
    { key: 'view', label: '查看路线', type: 'modal', permission: 'carRoute:list', component: RouteViewModal },
    { key: 'edit', label: '编辑路线', type: 'edit', permission: 'carRoute:edit' },
    // One action: editable with the edit code, read-only without (the modal decides).
    { key: 'points', label: '点位', type: 'modal', permission: 'carRoute:list', component: RoutePointsModal },
    { key: 'delete', label: '删除', type: 'delete', permission: 'carRoute:delete', path: calls.delete, body: (r) => ({ id: r.id }) },
  ],
  form: {
    schema: { create: drivingRouteCreate, edit: drivingRouteUpdate },
    create: { path: calls.save, title: '新增路线' },
    edit: { path: calls.edit, title: '编辑路线', idParam: 'id' },
    initialValues: { publish: RoutePublish.DRAFT },
    // The line and the points it passes are one input (route-path-input.tsx), sent as path and locationIds.
    toValues: routeFormValues,
    toPayload: routeFormBody,
    width: 860,
  },
  detail: { title: '查看路线', component: RouteViewModal },
});
