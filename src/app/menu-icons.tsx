import { lazy, Suspense } from 'react';
import type { IconCode } from '../../domain/icons';
import { shellIcons, type IconComponent } from '../components/shell-icons';

type IconProps = { className?: string; fontSize?: number | string };
const own: Partial<Record<string, IconComponent>> = shellIcons;
const { AppstoreOutline } = shellIcons;

/**
 * Any other code of the one icon set (a node edited in the permission screen):
 * its glyphs come as their own chunk, asked for only when such a menu shows.
 */
const SetIcon = lazy(() =>
  import('../components/icon-glyphs').then(({ iconGlyphs }) => ({
    default: ({ name, ...props }: IconProps & { name: string }) => {
      const Icon = (iconGlyphs as Partial<Record<string, IconComponent>>)[name as IconCode] ?? AppstoreOutline;
      return <Icon {...props} />;
    },
  })),
);

/**
 * A menu's icon by the code the permission table stores: one of the shell's
 * own (the catalogue's menus, drawn with the first paint), else any code of
 * the one icon set (domain/icons.ts), loaded lazily; the grid icon stands in
 * meanwhile, and for a name outside the set.
 */
export function MenuIcon({ name, className, fontSize }: { name?: string } & IconProps) {
  const props = { className, ...(fontSize !== undefined ? { fontSize } : {}) };
  const Icon = name ? own[name] : undefined;
  if (Icon) return <Icon {...props} />;
  if (!name) return <AppstoreOutline {...props} />;
  return (
    <Suspense fallback={<AppstoreOutline {...props} />}>
      <SetIcon name={name} {...props} />
    </Suspense>
  );
}
