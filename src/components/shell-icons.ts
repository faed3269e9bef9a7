import type { ComponentType, CSSProperties } from 'react';
import {
  AppOutline,
  AppstoreOutline,
  CalendarOutline,
  CheckCircleOutline,
  CheckShieldOutline,
  EnvironmentOutline,
  ExclamationCircleOutline,
  ExclamationShieldOutline,
  FileOutline,
  FlagOutline,
  HistogramOutline,
  LockOutline,
  ScanningOutline,
  SetOutline,
  SoundOutline,
  StopOutline,
  TeamOutline,
  TruckOutline,
  UnorderedListOutline,
  UploadOutline,
  UserAddOutline,
  UserOutline,
  UserSetOutline,
} from 'antd-mobile-icons';
import type { IconCode } from '../../domain/icons';

export type IconComponent = ComponentType<{ className?: string; style?: CSSProperties; fontSize?: number | string }>;

/**
 * The icons the permission catalogue's menus name (domain/permissions.ts):
 * the signed-in shell draws them with its first paint (src/app/menu-icons.tsx),
 * and the whole set's module (icon-glyphs.ts) takes them from here rather than
 * importing them again, so the bundler keeps them in one chunk with the shell.
 */
export const shellIcons = {
  AppOutline,
  AppstoreOutline,
  CalendarOutline,
  CheckCircleOutline,
  CheckShieldOutline,
  EnvironmentOutline,
  ExclamationCircleOutline,
  ExclamationShieldOutline,
  FileOutline,
  FlagOutline,
  HistogramOutline,
  LockOutline,
  ScanningOutline,
  SetOutline,
  SoundOutline,
  StopOutline,
  TeamOutline,
  TruckOutline,
  UnorderedListOutline,
  UploadOutline,
  UserAddOutline,
  UserOutline,
  UserSetOutline,
} satisfies Partial<Record<IconCode, IconComponent>>;
