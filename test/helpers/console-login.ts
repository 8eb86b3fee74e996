// The console's account sign-in as a user does it (e-mail and password, then a project from the list), for
// the Chromium tests of the console (test/console*.test.ts).
import type { Page } from 'playwright-core';

/**
 * Sign in on the console's login form and open `projectId`; resolves once the Upload view is shown.
 * @param page a page at the console's start (signed out)
 */
export async function signInAndChoose(page: Page, email: string, password: string, projectId: string): Promise<void> {
  await page.fill('#login-email', email);
  await page.fill('#login-password', password);
  await page.click('#login-submit');
  await page.waitForSelector('#project-select');
  await page.selectOption('#project-select', projectId);
  await page.click('#project-choose');
  await page.waitForSelector('#tabs a.active[data-view="upload"]');
}
