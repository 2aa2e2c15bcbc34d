/**
 * What changes about people that a person must hear of without opening the panel: someone asks for control
 * (to an owner and to the one in control, with a way to give it at once), and this viewer got control or lost
 * it (unless it gave it away itself).
 */
import CloseIcon from '@mui/icons-material/Close';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import IconButton from '@mui/material/IconButton';
import Snackbar from '@mui/material/Snackbar';
import { useState } from 'react';
import type { PeoplePayload } from '../../../player';
import { peopleRoles, type PeopleLink } from '../hooks/use-people';

/** How long news of control stays up. */
const NEWS_MS = 6000;

/** The sentence for a change of control between two `people` payloads, if this viewer should hear of it. */
export function controlNews(
  before: PeoplePayload,
  after: PeoplePayload,
  given: string | undefined,
): string | undefined {
  const was = before.controller === before.you;
  const is = after.controller === after.you;
  if (!was && is) return 'You are in control: your keys and pointer reach the program.';
  if (!was || is || (after.controller !== null && after.controller === given)) return undefined;
  const { me, controller } = peopleRoles(after);
  if (!controller) return 'You are no longer in control.';
  return me?.role === 'watcher' && controller.role === 'owner'
    ? `${controller.name} took control back.`
    : `${controller.name} is in control now.`;
}

/** Who asks for control in `after` and did not in `before`. */
function newAskers(before: PeoplePayload | undefined, after: PeoplePayload): string[] {
  const asked = new Set(before?.people.filter((p) => p.asking).map((p) => p.id));
  return after.people.filter((p) => p.asking && p.id !== after.you && !asked.has(p.id)).map((p) => p.id);
}

export function PeopleNotices(props: { payload: PeoplePayload | undefined; link: PeopleLink }) {
  const { payload, link } = props;
  const [seen, setSeen] = useState(payload);
  // Who asked, oldest first; one is shown at a time, as long as they still ask.
  const [askers, setAskers] = useState<string[]>([]);
  const [news, setNews] = useState<{ text: string; n: number }>();
  // Each new payload is compared with the one before, as it comes (React's "adjust state on a prop change").
  if (payload !== seen) {
    setSeen(payload);
    if (payload) {
      const fresh = newAskers(seen, payload);
      if (fresh.length > 0) setAskers((list) => [...list.filter((id) => !fresh.includes(id)), ...fresh]);
      const text = seen && controlNews(seen, payload, link.given);
      if (text) setNews({ text, n: (news?.n ?? 0) + 1 });
    }
  }
  const roles = payload && peopleRoles(payload);
  const asker = roles?.canGive
    ? askers.map((id) => payload?.people.find((p) => p.id === id && p.asking)).find((p) => p !== undefined)
    : undefined;
  const dismiss = (id: string) => setAskers((list) => list.filter((other) => other !== id));
  return (
    <>
      {asker && (
        <Snackbar open key={asker.id} anchorOrigin={{ vertical: 'bottom', horizontal: 'right' }}>
          <Alert
            severity="info"
            variant="filled"
            action={
              <>
                <Button
                  color="inherit"
                  size="small"
                  onClick={() => {
                    link.give(asker.id);
                    dismiss(asker.id);
                  }}
                >
                  Give control
                </Button>
                <IconButton
                  color="inherit"
                  size="small"
                  aria-label="Dismiss"
                  onClick={() => dismiss(asker.id)}
                >
                  <CloseIcon fontSize="small" />
                </IconButton>
              </>
            }
          >
            {asker.name} asks for control.
          </Alert>
        </Snackbar>
      )}
      {news && (
        <Snackbar
          open
          key={news.n}
          autoHideDuration={NEWS_MS}
          onClose={() => setNews(undefined)}
          anchorOrigin={{ vertical: 'top', horizontal: 'center' }}
        >
          <Alert severity="info" variant="filled" onClose={() => setNews(undefined)}>
            {news.text}
          </Alert>
        </Snackbar>
      )}
    </>
  );
}
