// Firefox's preferences in a session (copied into its profile, which lives in the session's private home): no
// first-run pages, no default-browser question, no updates or reports, and nothing it would try to fetch, since
// the session has no network.
/* global user_pref -- Firefox reads this file as preferences, not as a script: user_pref is its syntax. */
user_pref('browser.aboutwelcome.enabled', false);
user_pref('browser.shell.checkDefaultBrowser', false);
user_pref('browser.startup.homepage_override.mstone', 'ignore');
user_pref('startup.homepage_welcome_url', '');
user_pref('startup.homepage_welcome_url.additional', '');
user_pref('datareporting.policy.dataSubmissionEnabled', false);
user_pref('datareporting.healthreport.uploadEnabled', false);
user_pref('toolkit.telemetry.reportingpolicy.firstRun', false);
user_pref('app.update.enabled', false);
user_pref('browser.tabs.warnOnClose', false);
user_pref('browser.sessionstore.resume_from_crash', false);
user_pref('extensions.pocket.enabled', false);
user_pref('browser.newtabpage.activity-stream.feeds.topsites', false);
user_pref('browser.newtabpage.activity-stream.showSponsoredTopSites', false);
user_pref('network.captive-portal-service.enabled', false);
user_pref('network.connectivity-service.enabled', false);
