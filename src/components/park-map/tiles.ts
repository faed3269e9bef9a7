import { queryOptions } from '@tanstack/react-query';
import { bigScreenApi } from '../../../domain/schemas/big-screen';
import { call } from '../../lib/http';

/** The configured tiles (GET /board/mapTiles): the server's configuration, read once per visit by every map. */
export const mapTilesQuery = queryOptions({ queryKey: ['mapTiles'], queryFn: () => call(bigScreenApi.mapTiles), staleTime: Infinity });
