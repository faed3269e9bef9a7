import { QueryClient } from '@tanstack/react-query';
import { ApiError } from '../lib/http';
import { session } from '../lib/session';

export const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // A refused or invalid call will not succeed on retry; only network trouble might.
      retry: (count, err) => count < 2 && (!(err instanceof ApiError) || err.status === 0 || err.status >= 500),
      refetchOnWindowFocus: false,
    },
  },
});

// Whoever signs in next must not see the previous person's cached data.
session.subscribe(() => queryClient.clear());
