/**
 * Who is in control, beside the player's state under the title, once others are here (alone, a person is in
 * control of their own session, and the chip would say nothing): "You are in control", or "Ada is in control".
 */
import Chip from '@mui/material/Chip';
import { peopleRoles, type People } from '../hooks/use-people';
// The latency chip's height: the one line under the title keeps its height.
import { CHIP_SX } from './latency-chip';

export function ControlChip(props: { people: People }) {
  const { payload } = props.people;
  if (!payload || payload.people.length < 2) return null;
  const { controller, controlling } = peopleRoles(payload);
  if (!controller) return null;
  return (
    <Chip
      component="span"
      size="small"
      color={controlling ? 'primary' : 'default'}
      variant={controlling ? 'filled' : 'outlined'}
      label={controlling ? 'You are in control' : `${controller.name} is in control`}
      sx={CHIP_SX}
    />
  );
}
