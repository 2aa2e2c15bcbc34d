import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, screen, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { profiles } from '../../../test/fixtures';
import { launchQueries } from '../api/launch-queries';
import { LaunchReview } from './launch-review';

describe('LaunchReview', () => {
  it('names the profile as the profile step showed it, by its name, with its id after', () => {
    const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    // What the profile step asked for: the review asks nothing again.
    queryClient.setQueryData(launchQueries.profiles('usd-viewer', '1.2.0').queryKey, profiles);
    render(
      <QueryClientProvider client={queryClient}>
        <LaunchReview
          choice={{
            app: 'usd-viewer',
            version: 'latest',
            resolvedVersion: '1.2.0',
            profile: 'small',
            arguments: {},
          }}
          declared={[]}
          appName="USD Viewer"
          launching={false}
          onBack={vi.fn()}
          onLaunch={vi.fn()}
        />
      </QueryClientProvider>,
    );
    const summary = screen.getByRole('table', { name: 'Launch summary' });
    const row = within(summary).getByRole('rowheader', { name: 'Profile' }).closest('tr')!;
    expect(row).toHaveTextContent('Small (small)');
  });
});
