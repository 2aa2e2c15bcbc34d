/** A small live line chart of one stats field over the last minute, as SVG. */
import Box from '@mui/material/Box';
import Typography from '@mui/material/Typography';

/** Points of an SVG polyline for `values` in a `width`x`height` box; the top is the largest value. */
export function sparklinePoints(values: number[], width: number, height: number): string {
  if (values.length === 0) return '';
  const max = Math.max(...values, 1e-9);
  const step = values.length > 1 ? width / (values.length - 1) : 0;
  return values
    .map((v, i) => `${(i * step).toFixed(1)},${(height - (Math.max(0, v) / max) * height).toFixed(1)}`)
    .join(' ');
}

/** A labelled sparkline with the latest value. */
export function Sparkline(props: { label: string; unit: string; values: number[]; color: string }) {
  const width = 160;
  const height = 36;
  const latest = props.values.at(-1);
  const text = latest === undefined ? '-' : `${latest.toFixed(latest >= 100 ? 0 : 1)} ${props.unit}`;
  return (
    <Box>
      <Typography variant="caption" component="div">
        {props.label}: {text}
      </Typography>
      <svg
        width={width}
        height={height}
        viewBox={`0 0 ${width} ${height}`}
        role="img"
        aria-label={`${props.label} over the last minute`}
      >
        <polyline
          fill="none"
          stroke={props.color}
          strokeWidth={1.5}
          points={sparklinePoints(props.values, width, height)}
        />
      </svg>
    </Box>
  );
}
