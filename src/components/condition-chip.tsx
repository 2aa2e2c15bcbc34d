/**
 * A session's condition as a badge: its words, its colour and an icon, so that the meaning does not rest on
 * colour alone (a failed session is red with an error icon, a running one green with a tick).
 */
import type { ReactElement } from 'react';
import AutorenewIcon from '@mui/icons-material/Autorenew';
import CheckCircleIcon from '@mui/icons-material/CheckCircle';
import ErrorIcon from '@mui/icons-material/Error';
import HourglassEmptyIcon from '@mui/icons-material/HourglassEmpty';
import StopCircleIcon from '@mui/icons-material/StopCircle';
import Chip from '@mui/material/Chip';
import type { ConditionBadge, ConditionKind } from '../lib/session-condition';

const ICONS: Record<ConditionKind, ReactElement | undefined> = {
  waiting: <HourglassEmptyIcon />,
  starting: <AutorenewIcon />,
  running: <CheckCircleIcon />,
  failed: <ErrorIcon />,
  ended: <StopCircleIcon />,
  unknown: undefined,
};

/** The badge of `badge` (`conditionBadge`); `label` replaces its words where a page says more (why it ended). */
export function ConditionChip({
  badge,
  label,
  size = 'medium',
}: {
  badge: ConditionBadge;
  label?: string;
  size?: 'small' | 'medium';
}) {
  return (
    <Chip
      icon={ICONS[badge.kind]}
      label={label ?? badge.label}
      color={badge.color}
      size={size}
      sx={{ alignSelf: 'start' }}
    />
  );
}
