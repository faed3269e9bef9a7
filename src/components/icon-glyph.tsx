import { useEffect, useSyncExternalStore, type CSSProperties, type ReactNode } from 'react';
import type { IconComponent } from './shell-icons';

/**
 * The glyphs of the one icon set (domain/icons.ts), fetched as their own
 * chunk on first use: screens that show the set (the icon gallery, the
 * permission screens) and a menu naming an icon beyond the shell's few pay
 * for it, the signed-in first load does not.
 */
let glyphs: Readonly<Record<string, IconComponent>> | null = null;
let loading: Promise<Readonly<Record<string, IconComponent>>> | null = null;
const listeners = new Set<() => void>();

export function loadIconGlyphs(): Promise<Readonly<Record<string, IconComponent>>> {
  loading ??= import('./icon-glyphs').then(
    (m) => {
      glyphs = m.iconGlyphs;
      for (const l of listeners) l();
      return glyphs;
    },
    (err: unknown) => {
      // Offline before the chunk was ever fetched: the next use tries again.
      loading = null;
      throw err;
    },
  );
  return loading;
}

const subscribe = (l: () => void) => {
  listeners.add(l);
  return () => void listeners.delete(l);
};

/** Every glyph by code once loaded, null until then (asking for them on first use). */
export function useIconGlyphs(): Readonly<Record<string, IconComponent>> | null {
  const loaded = useSyncExternalStore(
    subscribe,
    () => glyphs,
    () => null,
  );
  useEffect(() => {
    if (!glyphs) loadIconGlyphs().catch(() => undefined);
  }, []);
  return loaded;
}

export interface IconGlyphProps {
  code: string | null | undefined;
  className?: string;
  style?: CSSProperties;
  fontSize?: number | string;
  /** Shown while the glyphs load and for a code the set does not know. */
  fallback?: ReactNode;
}

/** One icon of the set by its code (the permission table's `icon`). */
export function IconGlyph({ code, className, style, fontSize, fallback = null }: IconGlyphProps) {
  const all = useIconGlyphs();
  const Icon = code ? all?.[code] : undefined;
  if (!Icon) return <>{fallback}</>;
  return <Icon className={className} style={style} {...(fontSize !== undefined ? { fontSize } : {})} />;
}
