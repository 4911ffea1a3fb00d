// A floor under the cost of dorny/test-reporter's go test -json parser
// (BenchmarkGoTestNodeJSONParseFloor, issue 35). That parser
// (src/parsers/golang-json/golang-json-parser.ts) reads the file as a
// string, trims it, splits it on newlines and calls JSON.parse on every
// line before it groups a single event; this times that much alone, in
// the node that runs it, and prints the stream's megabytes per CPU second
// of each of RUNS passes. Anything the real parser does after it only adds.
//
//   node jsonparse-floor.mjs FILE RUNS
import {readFileSync} from 'node:fs'

const [file, runs] = [process.argv[2], Number(process.argv[3] || 1)]
const content = readFileSync(file, 'utf8')
const megabytes = Buffer.byteLength(content) / 1e6
const rates = []
for (let r = 0; r < runs; r++) {
  const before = process.cpuUsage()
  const events = content.trim().split('\n').map(line => JSON.parse(line))
  const used = process.cpuUsage(before)
  if (events.length === 0) throw new Error(`${file}: no events`)
  rates.push(megabytes / ((used.user + used.system) / 1e6))
}
console.log(rates.map(r => r.toFixed(1)).join(' '))
