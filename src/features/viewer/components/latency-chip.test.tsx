import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { LatencyChip, latencyLevel } from './latency-chip';

describe('LatencyChip', () => {
  it('is green up to 60 ms, amber up to 150 ms and red beyond', () => {
    expect(latencyLevel(60).color).toBe('success');
    expect(latencyLevel(61).color).toBe('warning');
    expect(latencyLevel(150).color).toBe('warning');
    expect(latencyLevel(151).color).toBe('error');
  });

  it('says the round trip in whole milliseconds, in the colour of its level', () => {
    render(<LatencyChip sample={{ time: 0, rttMs: 182.4, path: 'relay TCP', fps: 29.6 }} />);
    const chip = screen.getByText('Latency 182 ms').closest('.MuiChip-root');
    expect(chip).toHaveClass('MuiChip-colorError');
    expect(chip).toHaveAccessibleDescription(
      'Round trip to the application: 182 ms, slow (path relay TCP, 30 fps)',
    );
  });

  it('holds its place unseen, and says nothing, before the browser reports a round trip', () => {
    const { container } = render(<LatencyChip sample={{ time: 0, fps: 30 }} />);
    const chip = container.querySelector('.MuiChip-root');
    expect(chip).toHaveAttribute('aria-hidden', 'true');
    expect(chip).toHaveStyle({ visibility: 'hidden' });
    expect(screen.getByText('Latency 0 ms')).not.toBeVisible();
  });
});
