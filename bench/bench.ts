// `npm run bench`: not built yet (issue #7).
process.stderr.write('npm run bench is not available yet in this version.\n');
process.exit(1);
