import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { StatsOverlay } from './stats-overlay';

const figure = (name: string) => document.querySelector(`[data-stat="${name}"]`)?.textContent;

describe('StatsOverlay', () => {
  it('says a still picture is still, rather than giving figures that look like a broken stream', () => {
    render(<StatsOverlay history={[{ time: 1, fps: 1, bitrateKbps: 1, width: 640, height: 360 }]} />);
    expect(screen.getByRole('region', { name: 'Stream statistics' })).toBeInTheDocument();
    expect(figure('Frames per second')).toBe('still picture (1 frame/s)');
    expect(figure('Bitrate')).toBe('1 kbit/s (nothing changes)');
  });

  it('gives the figures of a moving picture, and of a slow one that still carries a picture', () => {
    const { rerender } = render(<StatsOverlay history={[{ time: 1, fps: 29.8, bitrateKbps: 1500 }]} />);
    expect(figure('Frames per second')).toBe('29.8');
    expect(figure('Bitrate')).toBe('1500 kbit/s');
    rerender(<StatsOverlay history={[{ time: 1, fps: 1, bitrateKbps: 400 }]} />);
    expect(figure('Frames per second')).toBe('1.0');
  });

  it("gives the sound's figures only where the connection reports sound", () => {
    const { rerender } = render(<StatsOverlay history={[{ time: 1, fps: 30, bitrateKbps: 1500 }]} />);
    expect(screen.getByRole('region', { name: 'Stream statistics' })).not.toHaveTextContent(/audio/i);
    const audio = { bitrateKbps: 64.4, jitterMs: 3.25, packetsLost: 2 };
    rerender(<StatsOverlay history={[{ time: 1, fps: 30, bitrateKbps: 1500, audio }]} />);
    expect(figure('Audio bitrate')).toBe('64 kbit/s');
    expect(figure('Audio jitter')).toBe('3.3 ms');
    expect(figure('Audio packets lost')).toBe('2');
  });
});
