// The two bits of Node the dashboard source uses to print itself when run as a script.
declare var process: { argv: string[]; stdout: { write(s: string): boolean } };
interface ImportMeta { url: string }
