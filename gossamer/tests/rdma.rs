//! The rdma transport (cargo feature `rdma`) as far as this machine can take
//! it without an RDMA device: the feature builds, and asking for a device
//! that is not there gives a clear error instead of a crash.
//!
//! The README's test command builds without the feature (it needs system
//! packages, see docs/rack.md), so there this test is listed as ignored with
//! what to do; `.ci/run` installs the packages and runs it with the feature.

#[test]
#[cfg_attr(
    not(feature = "rdma"),
    ignore = "needs --features rdma (and its build packages, docs/rack.md): .ci/run builds and tests it"
)]
fn rdma_without_a_device_says_so() {
    #[cfg(feature = "rdma")]
    {
        let named = "gossamer-no-such-device";
        let err = gossamer::rack::rdma::open_device(named, 1)
            .expect_err("no RDMA device by that name exists");
        // Without kernel RDMA the device list itself fails; with it, no
        // device has that name. Either way the message names the device and
        // says what to use instead.
        assert!(err.contains(named), "{err}");
        assert!(err.contains("use --transport tcp"), "{err}");
    }
}
