// Builds the small C shim over libibverbs when the `rdma` feature is on (see
// csrc/verbs_shim.c for why a shim instead of bindgen).
fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    #[cfg(feature = "rdma")]
    {
        println!("cargo:rerun-if-changed=csrc/verbs_shim.c");
        cc::Build::new()
            .file("csrc/verbs_shim.c")
            .warnings(true)
            .compile("gossamer_verbs_shim");
        println!("cargo:rustc-link-lib=ibverbs");
    }
}
