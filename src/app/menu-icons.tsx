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

type IconComponent = ComponentType<{ className?: string; style?: CSSProperties; fontSize?: number | string }>;

/**
 * Icons by the name the permission table stores. An explicit map instead of
 * `import * as Icons` keeps ~150 unused icons out of the bundle; a name the
 * map does not know (added later in the permission screen) falls back.
 */
const icons: Record<string, IconComponent> = {
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
};

export function MenuIcon({ name, className, fontSize }: { name?: string; className?: string; fontSize?: number | string }) {
  const Icon = (name && icons[name]) || AppstoreOutline;
  return <Icon className={className} {...(fontSize !== undefined ? { fontSize } : {})} />;
}
