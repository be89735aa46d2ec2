/** Jest globalTeardown of the projects with test worlds: drops the databases the run's worlds retired (retired-databases.ts). */
import { dropRetired } from './retired-databases';

export default async function globalTeardown(): Promise<void> {
  if (process.env.DATABASE_URL) await dropRetired(process.env.DATABASE_URL);
}
