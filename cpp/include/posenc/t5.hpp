// T5 relative position buckets, exactly as HF transformers'
// T5Attention._relative_position_bucket (float32 log, truncation toward zero).
#pragma once
#include <cstdint>

namespace posenc {

struct T5BucketOptions {
  bool bidirectional = true;
  int num_buckets = 32;
  int max_distance = 128;
};

void t5_validate(const T5BucketOptions& o);  // throws posenc::Error
// relative = key_pos - query_pos. Validates the options too (cheap integer checks).
int32_t t5_bucket(int32_t relative, const T5BucketOptions& o);
void t5_buckets(const int32_t* relative, int count, const T5BucketOptions& o, int32_t* out);

}  // namespace posenc
