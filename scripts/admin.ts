// Process entry of `npm run backup` and `npm run restore` (src/admin/cli.ts does the work).
import { runAdmin } from '../src/admin/cli.ts';

const [command = '', ...rest] = process.argv.slice(2);
process.exitCode = await runAdmin(command, rest, process.env);
