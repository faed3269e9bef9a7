import './plate-badge.css';

/** A licence plate drawn in its plate colour, as on the detail and the scan result; `className` sizes it. */
export function PlateBadge({ plate, color, className = '' }: { plate: string; color?: number | null; className?: string }) {
  return <span className={`plate-badge plate-badge--${color ?? 2} ${className}`.trim()}>{plate}</span>;
}
