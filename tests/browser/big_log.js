// A large realistic training log: eight ranks of a torchrun job printing
// Trainer step lines and NCCL INFO lines, then the failure of
// tests/golden/multirank/oom-rank5/node-b.log (rank 5 runs out of GPU
// memory, the other ranks' watchdogs time out, torchrun reports the child).
'use strict';

const fs = require('fs');

const CHUNK = 8 << 20;

function fillerBlock(step) {
  const lines = [];
  for (let rank = 0; rank < 8; rank++) {
    const loss = (2.5 - (step % 5000) / 4000).toFixed(4);
    lines.push(
      `[rank${rank}]:{'loss': ${loss}, 'grad_norm': 0.${(step * 7 + rank) % 90 + 10}, 'learning_rate': 1.98e-05, 'epoch': ${(step / 100000).toFixed(2)}}`,
    );
    if (step % 50 === 0) {
      lines.push(
        `[rank${rank}]:node-b:2521733:2521733 [${rank}] NCCL INFO comm 0x55d0c1a0 rank ${rank} nranks 16 cudaDev ${rank} busId ${(rank + 1) * 10}00 - Init COMPLETE`,
      );
    }
  }
  return lines.join('\n') + '\n';
}

/** Writes about `bytes` bytes of healthy lines, then `failureTail`; returns the file's size. */
function writeBigLog(file, bytes, failureTail) {
  const fd = fs.openSync(file, 'w');
  let written = 0;
  let step = 0;
  try {
    while (written < bytes - failureTail.length) {
      let chunk = '';
      while (chunk.length < CHUNK) chunk += fillerBlock(step++);
      written += fs.writeSync(fd, chunk);
    }
    written += fs.writeSync(fd, failureTail);
  } finally {
    fs.closeSync(fd);
  }
  return written;
}

module.exports = { writeBigLog };
