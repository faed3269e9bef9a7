import { useEffect, useState } from 'react';

/** The designed canvas: 1920×1080, or a 32:9 wall of two screens side by side, 3840×1080. */
export const CANVAS_HEIGHT = 1080;
const SINGLE = 1920;
const WALL = 3840;

export interface Fit {
  width: number;
  scale: number;
  left: number;
  top: number;
}

/**
 * How the canvas fills a window of w×h: the wall layout for windows wider
 * than halfway between 16:9 and 32:9, then scaled to fit whole and centred
 * (letterboxed), so nothing scrolls or is cropped at any size.
 */
export function fitCanvas(w: number, h: number): Fit {
  const width = w / h >= (SINGLE + WALL) / 2 / CANVAS_HEIGHT ? WALL : SINGLE;
  const scale = Math.min(w / width, h / CANVAS_HEIGHT);
  return { width, scale, left: (w - width * scale) / 2, top: (h - CANVAS_HEIGHT * scale) / 2 };
}

export function useCanvasFit(): Fit {
  const [fit, setFit] = useState(() => fitCanvas(window.innerWidth, window.innerHeight));
  useEffect(() => {
    const onResize = () => setFit(fitCanvas(window.innerWidth, window.innerHeight));
    window.addEventListener('resize', onResize);
    onResize();
    return () => window.removeEventListener('resize', onResize);
  }, []);
  return fit;
}
