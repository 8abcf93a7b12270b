//! Mounts the site on `#app`.
fn main() {
    let root = gloo::utils::document()
        .get_element_by_id("app")
        .expect("index.html has #app");
    root.set_inner_html("");
    yew::Renderer::<vramfit_web::App>::with_root(root).render();
}
