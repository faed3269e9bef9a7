import { describe, expect, it } from 'vitest';
import { gcj02ToWgs84, haversineMeters, nearestOnLine, pointsAlongLine, wgs84ToGcj02, type LatLng } from '../../domain/geo';
import {
  PATH_FORMAT_MSG,
  PATH_MAX_MSG,
  PATH_MAX_POINTS,
  PATH_MIN_MSG,
  PATH_RANGE_MSG,
  PATH_REQUIRED_MSG,
  draftPath,
  joinIds,
  parsePath,
  pathProblem,
  serializePath,
  splitIds,
} from '../../domain/schemas/driving-route';

/** The park (spec 001: map centre about 22.74, 114.52) and 0.1° around it, on a grid: 41 × 41 points. */
const PARK: LatLng = [22.74, 114.52];
const grid = (): LatLng[] => {
  const out: LatLng[] = [];
  for (let i = -20; i <= 20; i++) for (let j = -20; j <= 20; j++) out.push([PARK[0] + i * 0.005, PARK[1] + j * 0.005]);
  return out;
};

describe('coordinates (domain/geo.ts)', () => {
  it('round-trips WGS-84 → GCJ-02 → WGS-84 within 0.01 m over the park’s area', () => {
    let worst = 0;
    for (const p of grid()) worst = Math.max(worst, haversineMeters(p, gcj02ToWgs84(wgs84ToGcj02(p))));
    expect(worst).toBeLessThanOrEqual(0.01);
  });

  it('round-trips a point taken on GCJ-02 tiles back to the same tile point within 0.01 m', () => {
    let worst = 0;
    for (const g of grid()) worst = Math.max(worst, haversineMeters(g, wgs84ToGcj02(gcj02ToWgs84(g))));
    expect(worst).toBeLessThanOrEqual(0.01);
  });

  it('moves a point by the few hundred metres GCJ-02 lies off WGS-84 around the park', () => {
    const shift = haversineMeters(PARK, wgs84ToGcj02(PARK));
    expect(shift).toBeGreaterThan(200);
    expect(shift).toBeLessThan(800);
  });

  it('measures distance by the haversine formula', () => {
    // 0.001° of latitude is about 111 m.
    expect(haversineMeters([22.74, 114.52], [22.741, 114.52])).toBeCloseTo(111.2, 0);
    expect(haversineMeters(PARK, PARK)).toBe(0);
  });
});

describe('route paths (domain/schemas/driving-route.ts)', () => {
  const line: LatLng[] = [
    [22.7391, 114.5083],
    [22.7512, 114.5196],
  ];

  it('accepts 2 to 500 well-formed vertices inside the coordinate ranges', () => {
    expect(pathProblem(serializePath(line))).toBeUndefined();
    const max = Array.from({ length: PATH_MAX_POINTS }, (_, i): LatLng => [22.7 + i * 1e-5, 114.5]);
    expect(pathProblem(serializePath(max))).toBeUndefined();
    expect(parsePath(serializePath(line))).toEqual(line);
  });

  it('names what is wrong with a path', () => {
    expect(pathProblem('')).toBe(PATH_REQUIRED_MSG);
    expect(pathProblem('[]')).toBe(PATH_REQUIRED_MSG);
    expect(pathProblem('[[22.7,114.5]]')).toBe(PATH_MIN_MSG);
    expect(pathProblem(serializePath(Array.from({ length: PATH_MAX_POINTS + 1 }, (): LatLng => [22.7, 114.5])))).toBe(PATH_MAX_MSG);
    expect(pathProblem('[[91,114.5],[22.7,114.5]]')).toBe(PATH_RANGE_MSG);
    expect(pathProblem('[[22.7,181],[22.7,114.5]]')).toBe(PATH_RANGE_MSG);
    for (const bad of ['x', '{}', '[1,2]', '[[1,2,3],[1,2]]', '[["22.7",114.5],[1,2]]', '[[null,1],[1,2]]', '"[[1,2],[3,4]]"']) expect(pathProblem(bad), bad).toBe(PATH_FORMAT_MSG);
    // Infinity is not JSON; a number too large for a double parses as Infinity and is refused.
    expect(pathProblem('[[1e400,1],[1,2]]')).toBe(PATH_FORMAT_MSG);
    expect(parsePath('[[22.7,114.5]]')).toEqual([]);
  });

  it('keeps a path being drawn (one vertex, none) and rounds what it sends to about a centimetre', () => {
    expect(draftPath('[[22.7,114.5]]')).toEqual([[22.7, 114.5]]);
    expect(draftPath(undefined)).toEqual([]);
    expect(draftPath('oops')).toEqual([]);
    expect(serializePath([[22.123456789, 114.987654321]])).toBe('[[22.1234568,114.9876543]]');
  });

  it('joins and splits the location_id comma list', () => {
    expect(joinIds([3, 1, 2])).toBe('3,1,2');
    expect(splitIds('3, 1,,x,2')).toEqual([3, 1, 2]);
    expect(splitIds(null)).toEqual([]);
  });
});

describe('the points a drawn line passes (domain/geo.ts)', () => {
  /** A point `east` and `north` metres from the park's centre. */
  const at = (east: number, north: number): LatLng => [PARK[0] + north / 111_195, PARK[1] + east / (111_195 * Math.cos((PARK[0] * Math.PI) / 180))];
  const gate = (id: number, east: number, north: number) => ({ id, place: at(east, north) as LatLng | null });
  const ids = (list: Array<{ id: number }>) => list.map((p) => p.id);

  it('measures the distance to the nearest segment, not only to the vertices, and how far along the line it is', () => {
    // West to east 1 km, then north 1 km.
    const line = [at(0, 0), at(1000, 0), at(1000, 1000)];
    const beside = nearestOnLine(line, at(400, 30))!;
    expect(beside.distance).toBeCloseTo(30, 0);
    expect(beside.along).toBeCloseTo(400, 0);
    const second = nearestOnLine(line, at(980, 700))!;
    expect(second.distance).toBeCloseTo(20, 0);
    expect(second.along).toBeCloseTo(1700, 0);
    // Past the line's end the nearest place is the end.
    const past = nearestOnLine(line, at(1000, 1300))!;
    expect(past.distance).toBeCloseTo(300, 0);
    expect(past.along).toBeCloseTo(2000, 0);
    // A line of one vertex is that point; none, nothing.
    expect(nearestOnLine([at(0, 0)], at(0, 50))!.distance).toBeCloseTo(50, 0);
    expect(nearestOnLine([], at(0, 0))).toBeUndefined();
    // Agrees with the great-circle distance to a vertex.
    expect(nearestOnLine(line, at(-300, -400))!.distance).toBeCloseTo(haversineMeters(at(-300, -400), at(0, 0)), 0);
  });

  it('picks the gates within the tolerance in the order the line reaches them, whatever order they are listed in', () => {
    const line = [at(0, 0), at(1000, 0), at(1000, 1000)];
    const gates = [gate(1, 995, 800), gate(2, 10, 12), gate(3, 500, -25), gate(4, 500, 200), gate(5, 2000, 0), { id: 6, place: null }];
    expect(ids(pointsAlongLine(line, gates, (g) => g.place, 30))).toEqual([2, 3, 1]);
    // A tighter tolerance leaves the gate 25 m off out.
    expect(ids(pointsAlongLine(line, gates, (g) => g.place, 20))).toEqual([2, 1]);
    // Drawn the other way, the same gates in the other order.
    expect(ids(pointsAlongLine([...line].reverse(), gates, (g) => g.place, 30))).toEqual([1, 3, 2]);
    expect(pointsAlongLine([], gates, (g) => g.place, 30)).toEqual([]);
  });

  it('places a gate the line passes twice where it passes nearest', () => {
    // Out east 1 km and back 40 m further north: the gate lies 10 m from the way back, 30 m from the way out.
    const line = [at(0, 0), at(1000, 0), at(1000, 40), at(0, 40)];
    const gates = [gate(1, 500, 30), gate(2, 900, 0), gate(3, 100, 40)];
    expect(ids(pointsAlongLine(line, gates, (g) => g.place, 35))).toEqual([2, 1, 3]);
  });
});
