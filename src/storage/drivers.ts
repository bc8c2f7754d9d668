// The client drivers of the server databases, loaded on first use. A static import would load every
// driver into every process whatever its db.url; loaded here, a server on SQLite never holds pg or
// mysql2. They are CommonJS packages, so `require` loads them synchronously (openDb stays synchronous
// and fails as it did on a bad URL), and an ES `import` of them elsewhere (tests) shares the instance.

import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

let pg: typeof import('pg') | undefined;
let mysql: typeof import('mysql2') | undefined;

/** The `pg` module (PostgreSQL and CockroachDB). */
export function loadPg(): typeof import('pg') {
  pg ??= require('pg') as typeof import('pg');
  return pg;
}

/** The `mysql2` module (MySQL and MariaDB). */
export function loadMysql(): typeof import('mysql2') {
  mysql ??= require('mysql2') as typeof import('mysql2');
  return mysql;
}
