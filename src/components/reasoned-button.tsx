/** A button that, while it cannot be used, says why beside it, and is described by that sentence. */
import { useId } from 'react';
import Button, { type ButtonProps } from '@mui/material/Button';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';

/** Props of ReasonedButton: a Button's, and the reason it is disabled (undefined: enabled). */
export type ReasonedButtonProps = ButtonProps & { reason: string | undefined };

/**
 * A disabled button alone leaves a person guessing; a tooltip would not show, since a disabled button takes
 * no pointer or focus. The reason is text on the page, and the button's accessible description.
 */
export function ReasonedButton({ reason, ...props }: ReasonedButtonProps) {
  const id = useId();
  return (
    <Stack direction="row" spacing={1.5} useFlexGap sx={{ alignItems: 'center', flexWrap: 'wrap' }}>
      <Button
        {...props}
        disabled={reason !== undefined || props.disabled}
        aria-describedby={reason !== undefined ? id : undefined}
      />
      {reason !== undefined && (
        <Typography id={id} variant="body2" color="text.secondary">
          {reason}
        </Typography>
      )}
    </Stack>
  );
}
