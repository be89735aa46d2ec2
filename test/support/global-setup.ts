/** Jest globalSetup of the projects with test worlds: their databases are retired, then dropped at the end (retired-databases.ts). */
import { RETIRE_ENV } from './retired-databases';

export default async function globalSetup(): Promise<void> {
  // Read by the workers, which jest starts after this.
  process.env[RETIRE_ENV] = '1';
}
