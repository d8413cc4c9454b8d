/** An interval of `param` milliseconds, in SQL (every wait is counted on the database clock). */
export const msInterval = (param: string) => `make_interval(secs => ${param}::float8 / 1000)`;
