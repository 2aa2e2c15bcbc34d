import { fireEvent, render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { AppIcon, iconUrl, monogram, monogramColour } from './app-icon';

describe('AppIcon', () => {
  it('makes a monogram of the first two words, in a colour that depends on the id only', () => {
    expect(monogram('USD Viewer')).toBe('UV');
    expect(monogram('gears')).toBe('G');
    expect(monogram('Digital Twin Dashboard')).toBe('DT');
    expect(monogram('omni.usd_explorer')).toBe('OU');
    expect(monogramColour('usd-viewer')).toBe(monogramColour('usd-viewer'));
    expect(new Set(['a', 'b', 'c', 'd', 'e', 'f'].map(monogramColour)).size).toBeGreaterThan(1);
  });

  it('resolves an icon against the catalog API address, and only as http(s)', () => {
    expect(iconUrl('/catalog-icons/icons/a.svg')).toBe(`${location.origin}/catalog-icons/icons/a.svg`);
    expect(iconUrl('https://cdn.example/a.png')).toBe('https://cdn.example/a.png');
    expect(iconUrl('javascript:alert(1)')).toBeUndefined();
    expect(iconUrl(undefined)).toBeUndefined();
  });

  it('shows the image, and the monogram when it does not load', () => {
    const { container } = render(
      <AppIcon app={{ id: 'usd-viewer', name: 'USD Viewer', icon: '/catalog-icons/usd.svg' }} />,
    );
    const img = container.querySelector('img');
    expect(img).toHaveAttribute('src', `${location.origin}/catalog-icons/usd.svg`);
    expect(img).toHaveAttribute('alt', '');
    fireEvent.error(img!);
    expect(screen.getByTestId('app-monogram')).toHaveTextContent('UV');
    expect(container.querySelector('img')).toBeNull();
  });

  it('shows the monogram without an icon', () => {
    render(<AppIcon app={{ id: 'gears', name: 'Gears' }} />);
    expect(screen.getByTestId('app-monogram')).toHaveTextContent('G');
  });
});
