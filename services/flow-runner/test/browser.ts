export { CHROMIUM_PATH, axeViolations, launchBrowser, newPerson } from '@idv/testkit';
