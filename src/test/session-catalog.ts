/** The catalog as the sessions page's tests answer it: the names of what sessions run. */
import { apps, profiles } from './fixtures';
import { api, http, HttpResponse, server } from './server';

/** The catalog answers with the fixtures' names, or (`false`) knows none of the applications. */
export function sessionCatalog(answers = true) {
  server.use(
    http.get(api('/cfg/apps/:id'), () =>
      answers ? HttpResponse.json(apps[0]) : HttpResponse.json({ detail: 'Not found.' }, { status: 404 }),
    ),
    http.get(api('/cfg/apps/:id/versions/:version/profiles'), () =>
      answers
        ? HttpResponse.json({ count: profiles.length, items: profiles })
        : HttpResponse.json({ detail: 'Not found.' }, { status: 404 }),
    ),
  );
}
