// The nccl-tests importer on the real logs of the development set (tests/data/nccl-tests/dev)
// and on two constructed inputs for the formats those logs lack (2017 ms times, broadcast).
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "sim/core/error.hpp"
#include "sim/measure/measurement.hpp"
#include "sim/measure/nccl_tests_log.hpp"

using namespace collsim;

namespace {
const std::string kDev = std::string(COLLSIM_TEST_DATA) + "/nccl-tests/dev/";
const std::string kData = std::string(COLLSIM_TEST_DATA) + "/nccl-tests/";
double us(Time t) { return t.us(); }
}  // namespace

TEST_CASE("importer reads the current-format H100 two-node log", "[measure][nccl-tests]") {
  const auto runs = import_nccl_tests_log(kDev + "h100x8_2nodes_gcp_a3mega_allreduce.txt");
  REQUIRE(runs.size() == 1);
  const auto& r = runs[0];
  CHECK(r.format == NcclTestsFormat::Current);
  CHECK(r.op == CollectiveOp::AllReduce);
  // No rank lines; nThread 1 nGpus 1 per process (mpirun -np 16). The fastest row has
  // busbw/algbw = 338.82/180.71 = 1.875 = 2(n-1)/n -> n = 16.
  CHECK(r.ranks == 16);
  CHECK(r.ranks_from == "busbw/algbw");
  // -b 8 -e 8G -f 2: 2^3 .. 2^33 = 31 rows.
  REQUIRE(r.rows.size() == 31);
  CHECK(r.rows[0].size.count == 8);
  CHECK(r.rows[0].count == 2);
  CHECK(r.rows[0].root == -1);
  CHECK(r.rows[0].redop == "sum");
  CHECK(us(r.rows[0].out_of_place.time) == Approx(135.8));
  CHECK(us(r.rows[0].in_place->time) == Approx(123.5));
  // The last row prints a time too wide for 2 decimals: "47535" us.
  CHECK(r.rows[30].size.count == 8589934592LL);
  CHECK(us(r.rows[30].out_of_place.time) == Approx(47535));
  CHECK(r.rows[30].out_of_place.busbw_gbps == Approx(338.82));
  CHECK(us(r.rows[30].in_place->time) == Approx(47743));
  CHECK(r.rows[30].out_of_place.check == "0");
  CHECK(r.avg_busbw_gbps == Approx(70.742));
}

TEST_CASE("importer reads the partial 2019-format all_gather log", "[measure][nccl-tests]") {
  const auto runs = import_nccl_tests_log(kDev + "rtx2080ti_x2_nvlink_bridge_allgather_oldformat.txt");
  REQUIRE(runs.size() == 1);
  const auto& r = runs[0];
  // The "# columns:" comment names algbw/busbw/error: the 2019-2022 layout.
  CHECK(r.format == NcclTestsFormat::Error2019);
  // The comment names all_gather_perf first; the file name says allgather too.
  CHECK(r.op == CollectiveOp::AllGather);
  // Gather tables print size = ranks x count x 4 B: 32768 = n x 4096 x 4 -> n = 2.
  CHECK(r.ranks == 2);
  CHECK(r.ranks_from == "size/count");
  // Rows 32 KiB .. 128 MiB by factor 2 = 13 rows (smaller sizes were not in the post).
  REQUIRE(r.rows.size() == 13);
  CHECK(r.rows[0].size.count == 32768);
  CHECK(r.rows[0].redop.empty());
  CHECK_FALSE(r.rows[0].root.has_value());
  CHECK(us(r.rows[0].out_of_place.time) == Approx(13.39));
  CHECK(r.rows[0].out_of_place.check == "0e+00");
  CHECK(us(r.rows[12].out_of_place.time) == Approx(3298.6));
  CHECK(us(r.rows[12].in_place->time) == Approx(3070.3));
  CHECK(r.rows[12].in_place->busbw_gbps == Approx(21.86));
  CHECK(r.avg_busbw_gbps == Approx(6.6972));
}

TEST_CASE("importer splits the two-run RTX 4090 file", "[measure][nccl-tests]") {
  const auto runs = import_nccl_tests_log(kDev + "rtx4090x8_1node_pcie_nop2p_vs_p2p_allreduce.txt");
  REQUIRE(runs.size() == 2);
  for (const auto& r : runs) {
    CHECK(r.format == NcclTestsFormat::Current);
    CHECK(r.op == CollectiveOp::AllReduce);
    // busbw/algbw: run A 14.45/8.26, run B 20.64/11.79, both 1.75 = 2(8-1)/8.
    CHECK(r.ranks == 8);
    REQUIRE(r.rows.size() == 25);  // 8 B .. 128 MiB by factor 2
  }
  CHECK(us(runs[0].rows[24].out_of_place.time) == Approx(16253));
  CHECK(us(runs[1].rows[24].out_of_place.time) == Approx(11382));
  CHECK(us(runs[0].rows[0].out_of_place.time) == Approx(38.83));
  CHECK(us(runs[1].rows[0].out_of_place.time) == Approx(38.82));
  CHECK(runs[0].avg_busbw_gbps == Approx(4.85265));
  CHECK(runs[1].avg_busbw_gbps == Approx(6.11168));
  CHECK(runs[1].first_line > runs[0].rows.back().line);
}

TEST_CASE("importer reads the 2019-format V100 all_reduce log", "[measure][nccl-tests]") {
  const auto runs = import_nccl_tests_log(kDev + "v100sxm2x8_1node_nvlink_hybridcube_allreduce_oldformat.txt");
  REQUIRE(runs.size() == 1);
  const auto& r = runs[0];
  CHECK(r.format == NcclTestsFormat::Error2019);
  CHECK(r.op == CollectiveOp::AllReduce);
  CHECK(r.ranks == 8);  // 129.14 / 73.80 = 1.75 = 2(8-1)/8
  REQUIRE(r.rows.size() == 25);
  CHECK(r.rows[0].redop == "sum");
  CHECK_FALSE(r.rows[0].root.has_value());
  CHECK(r.rows[0].out_of_place.check == "1e-07");
  CHECK(us(r.rows[24].out_of_place.time) == Approx(1818.8));
  CHECK(r.rows[24].out_of_place.algbw_gbps == Approx(73.80));
  CHECK(r.rows[24].out_of_place.check == "2e-07");
  CHECK(r.avg_busbw_gbps == Approx(25.9598));
}

TEST_CASE("importer reads 2017 ms times under MPI prefixes", "[measure][nccl-tests]") {
  const auto runs = import_nccl_tests_log(kData + "constructed_2017_ms_mpi_prefix_allreduce.txt");
  REQUIRE(runs.size() == 1);
  const auto& r = runs[0];
  CHECK(r.format == NcclTestsFormat::Ms2017);
  CHECK(r.ranks == 4);  // four "Rank" lines
  CHECK(r.ranks_from == "rank lines");
  REQUIRE(r.rows.size() == 2);
  // 0.105 ms = 105 us; 1.396 ms = 1396 us.
  CHECK(us(r.rows[0].out_of_place.time) == Approx(105.0));
  CHECK(us(r.rows[1].in_place->time) == Approx(1396.0));
  CHECK(r.avg_busbw_gbps == Approx(16.5275));  // footer without '#'
}

TEST_CASE("importer reads a current broadcast log with [0] prefixes", "[measure][nccl-tests]") {
  const auto runs = import_nccl_tests_log(kData + "constructed_current_broadcast_rank_prefix.txt");
  REQUIRE(runs.size() == 1);
  CHECK(runs[0].op == CollectiveOp::Broadcast);  // "Collective test starting: broadcast_perf"
  CHECK(runs[0].ranks == 2);
  CHECK(runs[0].rows[0].root == 0);
  CHECK(runs[0].rows[0].redop == "none");
  CHECK(runs[0].rows[1].in_place->check == "N/A");
  CHECK(us(runs[0].rows[1].out_of_place.time) == Approx(80.0));
}

TEST_CASE("importer time unit falls back to algbw consistency without a header", "[measure][nccl-tests]") {
  // 1 MiB at 0.105 (ms) gives algbw 9.99 GB/s; read as us it would be 9986 GB/s.
  const std::string text = "    1048576        262144   float     sum    0.105   9.99  14.98    0e+00    0.104  10.08  15.12    0e+00\n";
  const auto runs = parse_nccl_tests_log(text, "x_allreduce.txt", NcclTestsImportOptions{std::nullopt, 4});
  CHECK(runs[0].rows[0].out_of_place.time == Time::from_us(105));
  CHECK(runs[0].format == NcclTestsFormat::Ms2017);
}

TEST_CASE("importer rejects what it cannot read", "[measure][nccl-tests]") {
  CHECK_THROWS_AS(import_nccl_tests_log(kData + "no_such_file.txt"), ConfigError);
  CHECK_THROWS_AS(parse_nccl_tests_log("# nothing here\n", "x_allreduce.txt"), ConfigError);
  // A data row with 5 fields.
  CHECK_THROWS_AS(parse_nccl_tests_log("1024 256 float sum 3.0\n", "x_allreduce.txt"), ConfigError);
  // No collective named anywhere (file name, comments).
  CHECK_THROWS_AS(parse_nccl_tests_log("1024 256 float sum -1 3.0 0.34 0.60 0 3.0 0.34 0.60 0\n", "log.txt"), ConfigError);
  // Collective named but rank count unknowable: broadcast (busbw factor 1), no rank lines.
  CHECK_THROWS_AS(parse_nccl_tests_log("1024 256 float none 0 3.0 0.34 0.34 0 3.0 0.34 0.34 0\n", "bcast_broadcast.txt"),
                  ConfigError);
  try {
    (void)parse_nccl_tests_log("# x\n1024 256 float sum -1 3.0 abc 0.60 0 3.0 0.34 0.60 0\n", "y_allreduce.txt");
    FAIL("no error");
  } catch (const ConfigError& e) {
    CHECK(e.source() == "y_allreduce.txt");
    CHECK(e.field() == "line 2");
    CHECK(e.value() == "abc");
  }
}

TEST_CASE("load_measurements turns log rows into measured collectives", "[measure]") {
  const auto set = load_measurements(kDev + "v100sxm2x8_1node_nvlink_hybridcube_allreduce_oldformat.txt");
  REQUIRE(set.collectives.size() == 25);
  CHECK(set.collectives[24].time.us() == Approx(1818.8));
  CHECK(set.collectives[24].ranks == 8);
  CHECK(set.collectives[24].algorithm.empty());
  CHECK(set.collectives[0].source.find(".txt:16") != std::string::npos);  // the first data row is line 16
}

TEST_CASE("importer keeps each row's times when sizes restart without a header", "[measure][nccl-tests]") {
  // Two runs in one table (no header between them): the second run's first row keeps its
  // own times (they were attached to the first run, and the rest shifted, before).
  const std::string text =
      "# nccl-tests all_reduce_perf, 4 ranks\n"
      "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
      "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)\n"
      "        1024           256     float     sum      -1    10.00    0.10    0.15      0    11.00    0.09    0.14      0\n"
      "        2048           512     float     sum      -1    20.00    0.10    0.15      0    21.00    0.10    0.15      0\n"
      "        1024           256     float     sum      -1    30.00    0.03    0.05      0    31.00    0.03    0.05      0\n"
      "        2048           512     float     sum      -1    40.00    0.05    0.08      0    41.00    0.05    0.07      0\n";
  const auto runs = parse_nccl_tests_log(text, "x_allreduce.txt", NcclTestsImportOptions{std::nullopt, 4});
  REQUIRE(runs.size() == 2);
  REQUIRE(runs[0].rows.size() == 2);
  REQUIRE(runs[1].rows.size() == 2);
  CHECK(us(runs[0].rows[1].out_of_place.time) == Approx(20));
  CHECK(us(runs[1].rows[0].out_of_place.time) == Approx(30));
  CHECK(us(runs[1].rows[0].in_place->time) == Approx(31));
  CHECK(us(runs[1].rows[1].in_place->time) == Approx(41));
}

TEST_CASE("importer refuses uneven result columns and rows with wrong results", "[measure][nccl-tests]") {
  // Out-of-place and in-place on one row, out-of-place only on the next: an error naming
  // the line (it read past the end of its times before).
  const std::string uneven =
      "1024 256 float sum -1 10.0 0.10 0.15 0 11.0 0.09 0.14 0\n"
      "2048 512 float sum -1 20.0 0.10 0.15 0\n";
  try {
    (void)parse_nccl_tests_log(uneven, "x_allreduce.txt", NcclTestsImportOptions{std::nullopt, 4});
    FAIL("no error");
  } catch (const ConfigError& e) {
    CHECK(e.field() == "line 2");
    CHECK_THAT(e.what(), Catch::Contains("the columns of the rows above it (line 1"));
  }
  // #wrong > 0: nccl-tests found wrong results; the row is not a measurement.
  try {
    (void)parse_nccl_tests_log("1024 256 float sum -1 10.0 0.10 0.15 3 11.0 0.09 0.14 0\n", "x_allreduce.txt",
                               NcclTestsImportOptions{std::nullopt, 4});
    FAIL("no error");
  } catch (const ConfigError& e) {
    CHECK(e.value() == "#wrong 3");
    CHECK_THAT(e.what(), Catch::Contains("0 wrong elements"));
  }
}

TEST_CASE("importer refuses a check column that is no count, and sizes past 2^63, by line", "[measure][nccl-tests]") {
  // The #wrong column is a count or N/A; anything else was taken as "no wrong elements".
  for (const char* check : {"abc", "-3", "1.5", "18446744073709551616"}) {
    const std::string row = fmt::format(
        "#  size count type redop root time algbw busbw #wrong time algbw busbw #wrong\n"
        "1024 256 float sum -1 10.0 0.10 0.15 {} 11.0 0.09 0.14 0\n",
        check);
    try {
      (void)parse_nccl_tests_log(row, "x_allreduce.txt", NcclTestsImportOptions{std::nullopt, 4});
      FAIL("no error for #wrong " << check);
    } catch (const ConfigError& e) {
      CHECK(e.field() == "line 2");
      CHECK(e.value() == fmt::format("#wrong {}", check));
      CHECK_THAT(e.what(), Catch::Contains("a count of wrong elements (0 or more) or N/A"));
    }
  }
  CHECK(parse_nccl_tests_log("1024 256 float sum -1 10.0 0.10 0.15 N/A 11.0 0.09 0.14 N/A\n", "x_allreduce.txt",
                             NcclTestsImportOptions{std::nullopt, 4})
            .front()
            .rows.size() == 1);
  // The 2019 format's "error" column is the largest error, a real number.
  const std::string old_format =
      "#       size         count    type   redop     time   algbw   busbw  error     time   algbw   busbw  error\n"
      "        1024           256   float     sum    10.00    0.10    0.18  2e-07    11.00    0.09    0.16  2e-07\n";
  CHECK(parse_nccl_tests_log(old_format, "x_allreduce.txt", NcclTestsImportOptions{std::nullopt, 4}).front().rows.size() == 1);
  // A size too large for 64 bits was read as a line of text and the row dropped.
  try {
    (void)parse_nccl_tests_log("1024 256 float sum -1 10.0 0.10 0.15 0 11.0 0.09 0.14 0\n"
                               "18446744073709551616 256 float sum -1 10.0 0.10 0.15 0 11.0 0.09 0.14 0\n",
                               "x_allreduce.txt", NcclTestsImportOptions{std::nullopt, 4});
    FAIL("no error");
  } catch (const ConfigError& e) {
    CHECK(e.field() == "line 2");
    CHECK_THAT(e.what(), Catch::Contains("a size in bytes from 0 to 2^50"));
  }
}

TEST_CASE("importer refuses a zero time, naming its line", "[measure][nccl-tests]") {
  // Validation drops rows whose measured time is 0, so an imported zero would vanish from
  // the comparison without a word; it is not a measurement, so the import fails instead.
  const std::string log =
      "#  nThread 1 nGpus 1 minBytes 1024 maxBytes 2048\n"
      "1024 256 float sum -1 3.0 0.34 0.60 0 3.0 0.34 0.60 0\n"
      "2048 512 float sum -1 0.00 0.68 1.19 0 3.0 0.68 1.19 0\n";
  try {
    (void)parse_nccl_tests_log(log, "z_allreduce.txt");
    FAIL("a zero time was imported");
  } catch (const ConfigError& e) {
    const std::string m = e.what();
    CHECK(m.find("line 3") != std::string::npos);
    CHECK(m.find("0.00") != std::string::npos);
    CHECK(m.find("positive time") != std::string::npos);
  }
}

TEST_CASE("importer refuses sizes and counts past 2^50, and numbers past int64", "[measure][nccl-tests]") {
  // Found by fuzz_nccl_tests_log: a count of 10^100 was clamped to INT64_MAX by strtoll, and
  // working out the rank count from size / (count x 4) overflowed.
  const std::string head = "# all_gather_perf\n#  nThread 1 nGpus 1 minBytes 1024 maxBytes 2048\n";
  const std::string huge(100, '9');
  for (const auto& [row, value] :
       {std::pair{"104 " + huge + " float none 0 80.00 26.11 13.11 0 80.00 26.11 13.11 0\n", huge},
        std::pair{std::string("2251799813685249 256 float none 0 80.00 26.11 13.11 0 80.00 26.11 13.11 0\n"),
                  std::string("2251799813685249")},
        std::pair{std::string("1024 2251799813685249 float none 0 80.00 26.11 13.11 0 80.00 26.11 13.11 0\n"),
                  std::string("2251799813685249")}}) {
    try {
      (void)parse_nccl_tests_log(head + row, "big_allgather.txt");
      FAIL("imported " + row);
    } catch (const ConfigError& e) {
      CHECK(e.value() == value);
      CHECK_THAT(e.what(), Catch::Contains("line 3") && Catch::Contains("to 2^50"));
    }
  }
}

TEST_CASE("importer keeps how many GPUs one thread drives (-g), for the launch floor", "[measure][nccl-tests]") {
  // V100 log: "nThread 1 nGpus 8": one thread launches every operation on 8 GPUs.
  const auto v100 = import_nccl_tests_log(kDev + "v100sxm2x8_1node_nvlink_hybridcube_allreduce_oldformat.txt");
  REQUIRE(v100.size() == 1);
  CHECK(v100[0].gpus_per_thread == 8);
  // One process per GPU (mpirun -np 16, "nGpus 1").
  CHECK(import_nccl_tests_log(kDev + "h100x8_2nodes_gcp_a3mega_allreduce.txt")[0].gpus_per_thread == 1);
  // The RTX 4090 file holds two runs under one header line: the second keeps it.
  const auto rtx = import_nccl_tests_log(kDev + "rtx4090x8_1node_pcie_nop2p_vs_p2p_allreduce.txt");
  REQUIRE(rtx.size() == 2);
  CHECK(rtx[0].gpus_per_thread == 8);
  CHECK(rtx[1].gpus_per_thread == 8);
  // No header line at all: one GPU per thread.
  const std::string bare = "1024 256 float sum -1 3.0 0.34 0.60 0 3.0 0.34 0.60 0\n";
  CHECK(parse_nccl_tests_log(bare, "x_allreduce.txt", NcclTestsImportOptions{std::nullopt, 2})[0].gpus_per_thread == 1);
  // The measurement carries it to validate.
  const MeasurementSet set = load_measurements(kDev + "v100sxm2x8_1node_nvlink_hybridcube_allreduce_oldformat.txt");
  REQUIRE_FALSE(set.collectives.empty());
  CHECK(set.collectives.front().gpus_per_thread == 8);
}

TEST_CASE("importer refuses thread and GPU counts outside 1 .. 2^20 ranks", "[measure][nccl-tests]") {
  const std::string row = "1024 256 float sum -1 3.0 0.34 0.60 0 3.0 0.34 0.60 0\n";
  for (const std::string head : {"#  nThread 0 nGpus 8 minBytes 8\n", "#  nThread 1 nGpus -2 minBytes 8\n",
                                 "#  nThread 4611686018427387904 nGpus 4 minBytes 8\n",
                                 "#  nThread 2048 nGpus 1024 minBytes 8\n"}) {
    try {
      (void)parse_nccl_tests_log(head + row, "t_allreduce.txt");
      FAIL("imported " + head);
    } catch (const ConfigError& e) {
      CHECK_THAT(e.what(), Catch::Contains("line 1") && Catch::Contains("at most 2^20 ranks"));
    }
  }
}

TEST_CASE("importer keeps the NCCL variables a log shows set, once each", "[measure][nccl-tests]") {
  const auto runs = import_nccl_tests_log(kData + "constructed_nccl_info_env_allreduce.txt");
  REQUIRE(runs.size() == 1);
  const auto& env = runs[0].nccl_env;
  // Every rank prints the line: one entry per name and value, at its first line; the "."
  // NCCL ends integer parameters with is not part of the value.
  REQUIRE(env.size() == 4);
  CHECK((env[0].name == "NCCL_SOCKET_IFNAME" && env[0].value == "eth0" && env[0].line == 18));
  CHECK((env[1].name == "NCCL_ALGO" && env[1].value == "Tree" && env[1].line == 21));
  CHECK((env[2].name == "NCCL_MAX_NCHANNELS" && env[2].value == "4" && env[2].line == 23));
  CHECK((env[3].name == "NCCL_IB_HCA" && env[3].value == "mlx5_0" && env[3].line == 25));
  CHECK(runs[0].ranks == 8);
  const MeasurementSet s = load_measurements(kData + "constructed_nccl_info_env_allreduce.txt");
  REQUIRE(s.collectives.size() == 3);
  CHECK(s.collectives[2].nccl_env.size() == 4);

  // A variable inside a table (read at its first use) belongs to that run; a comment that
  // quotes such a line does not count; logs without the lines have none.
  const auto two = parse_nccl_tests_log(
      "# nThread 1 nGpus 1\n"
      "# NCCL INFO NCCL_PROTO set by environment to LL\n"
      "  1024  256  float  sum  -1  10.0  0.10  0.19  0  10.0  0.10  0.19  0\n"
      "h:1:1 [0] NCCL INFO NCCL_PROTO set by environment to Simple\n"
      "  2048  512  float  sum  -1  11.0  0.19  0.35  0  11.0  0.19  0.35  0\n",
      "all_reduce.txt", {.op = std::nullopt, .ranks = 2});
  REQUIRE(two.size() == 1);
  REQUIRE(two[0].nccl_env.size() == 1);
  CHECK((two[0].nccl_env[0].value == "Simple" && two[0].nccl_env[0].line == 4));
  CHECK(import_nccl_tests_log(kDev + "h100x1_2nodes_4nic_tree_allreduce.txt")[0].nccl_env.empty());
}
