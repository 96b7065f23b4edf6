import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * Real photographs nobody here made, from Debian packages (issue 27: "200 distinct photos ... raise no false
 * match"), read from the packages' .deb files (`apt-get download`, `dpkg-deb`; nothing installed). `.ci/run`
 * downloads them into REAL_PHOTO_DEBS; run elsewhere, the test downloads them itself.
 *
 * Chosen by eye from every JPEG and PNG over 30 kB of these packages and of ukui-wallpapers, gnome-backgrounds,
 * python3-matplotlib, kstars-data and jigzo-data (docs/adr/0052): photographs only (no drawing, render,
 * screenshot, plot, diagram or collage of several pictures), one of each picture: the same wallpaper at several
 * sizes (plasma's 5120×2880 kept), one of each stereo or sequence pair, one of a tutorial's input and outputs
 * (opencv-doc shows the same photo with and without what it detected), one of two shots of one scene.
 */
export const REAL_PHOTOS: { package: string; folder: string; files: string[] }[] = [
  {
    package: "lomiri-wallpapers-16.04",
    folder: "usr/share/backgrounds",
    files: [
      "Dragonfly_by_Bolly.jpg",
      "Picture_0B_by_freespace.jpg",
      "Picture_1A_by_freespace.jpg",
      "Wine_by_Jakkub_Mede.jpg",
      "aitzgorri_by_Aitzol_Berasategi.jpg",
      "analogpattern_by_Peter_Nerlich.jpg",
      "friends_by_Aitzol_Berasategi.jpg",
      "life_by_Aitzol_Berasategi.jpg",
      "picosdeeuropa_by_Aitzol_Berasategi.jpg",
      "seeding_by_Clements_Engelhardt.jpg",
      "sunset_by_Aitzol_Berasategi.jpg",
    ],
  },
  {
    package: "lomiri-wallpapers-20.04",
    folder: "usr/share/backgrounds",
    files: ["Infinite-Sea_by_Aury88.jpg", "Kleiber_by_Lukas_Baubkus.jpg"],
  },
  {
    package: "mate-backgrounds",
    folder: "usr/share/backgrounds/mate/nature",
    files: [
      "Aqua.jpg",
      "Blinds.jpg",
      "Dune.jpg",
      "FreshFlower.jpg",
      "Garden.jpg",
      "GreenMeadow.jpg",
      "LadyBird.jpg",
      "RainDrops.jpg",
      "Storm.jpg",
      "TwoWings.jpg",
      "Wood.jpg",
      "YellowFlower.jpg",
    ],
  },
  {
    package: "opencv-doc",
    folder: "usr/share/doc/opencv-doc",
    files: [
      "examples/alphamat/input_images/plant.jpg",
      "examples/data/aero1.jpg",
      "examples/data/aloeL.jpg",
      "examples/data/apple.jpg",
      "examples/data/baboon.jpg",
      "examples/data/basketball2.png",
      "examples/data/board.jpg",
      "examples/data/box.png",
      "examples/data/box_in_scene.png",
      "examples/data/building.jpg",
      "examples/data/butterfly.jpg",
      "examples/data/chicky_512.png",
      "examples/data/ela_modified.jpg",
      "examples/data/fruits.jpg",
      "examples/data/graf1.png",
      "examples/data/home.jpg",
      "examples/data/leuvenA.jpg",
      "examples/data/licenseplate_motion.jpg",
      "examples/data/messi5.jpg",
      "examples/data/orange.jpg",
      "examples/data/rubberwhale2.png",
      "examples/data/squirrel_cls.jpg",
      "examples/data/sudoku.png",
      "examples/dnn_superres/butterfly.png",
      "examples/hfs/data/000.jpg",
      "examples/reg/home.png",
      "examples/text/scenetext01.jpg",
      "examples/text/scenetext02.jpg",
      "examples/text/scenetext03.jpg",
      "examples/text/scenetext04.jpg",
      "examples/text/scenetext05.jpg",
      "examples/text/scenetext06.jpg",
      "examples/text/scenetext_segmented_word01.jpg",
      "examples/text/scenetext_segmented_word02.jpg",
      "examples/text/scenetext_segmented_word03.jpg",
      "examples/text/scenetext_segmented_word04.jpg",
      "examples/text/scenetext_segmented_word05.jpg",
      "opencv4/html/11_demo.jpg",
      "opencv4/html/227943776_1.jpg",
      "opencv4/html/230501201_1.jpg",
      "opencv4/html/Cascade_Classifier_Tutorial_Result_Haar.jpg",
      "opencv4/html/Threshold_inRange_Tutorial_Result_input.jpeg",
      "opencv4/html/ab-1.jpg",
      "opencv4/html/ab.jpg",
      "opencv4/html/aero_det.jpg",
      "opencv4/html/affinepano.jpg",
      "opencv4/html/ambush_5_right.jpg",
      "opencv4/html/astra_color.jpg",
      "opencv4/html/asymetricalPattern.jpg",
      "opencv4/html/bus_det.jpg",
      "opencv4/html/calib_pattern.jpg",
      "opencv4/html/calib_radial.jpg",
      "opencv4/html/cat_det.jpg",
      "opencv4/html/chocclusion.jpg",
      "opencv4/html/choriginal.jpg",
      "opencv4/html/corridor_fld.jpg",
      "opencv4/html/demo.jpg",
      "opencv4/html/detect_test1.jpg",
      "opencv4/html/detect_test2.jpg",
      "opencv4/html/diamondsaxis.jpg",
      "opencv4/html/dualCircles.jpg",
      "opencv4/html/fileListImage.jpg",
      "opencv4/html/fsrcnnOutput.jpg",
      "opencv4/html/fusion_mertens.jpg",
      "opencv4/html/gbmarkersaxis.jpg",
      "opencv4/html/histogram_sample.jpg",
      "opencv4/html/homography_pose.jpg",
      "opencv4/html/homography_pose_estimation.jpg",
      "opencv4/html/motion_original.jpg",
      "opencv4/html/opencv_bus_res.jpg",
      "opencv4/html/person_multi_det.jpg",
      "opencv4/html/realsense.jpg",
      "opencv4/html/result.jpg",
      "opencv4/html/retina_TreeHdr_retina.jpg",
      "opencv4/html/singlemarkersrejected.jpg",
      "opencv4/html/studentsSample_parvo.jpg",
      "opencv4/html/text_det_test_results.jpg",
      "opencv4/html/yolo.jpg",
    ],
  },
  {
    package: "palapeli-data",
    folder: "usr/share/palapeli/collection",
    files: ["castle-maintenon.jpg", "cincinnati-bridge.jpg", "citrus-fruits.jpg", "european-honey-bee.jpg", "panther-chameleon-female.jpg"],
  },
  {
    package: "plasma-workspace-wallpapers",
    folder: "usr/share/wallpapers",
    files: [
      "BytheWater/contents/images/2560x1600.jpg",
      "ColdRipple/contents/images/2560x1600.jpg",
      "DarkestHour/contents/images/2560x1600.jpg",
      "EveningGlow/contents/images/2560x1600.jpg",
      "FallenLeaf/contents/images/2560x1600.jpg",
      "OneStandsOut/contents/images/2560x1600.jpg",
      "Path/contents/images/2560x1600.jpg",
    ],
  },
  {
    package: "python3-skimage",
    folder: "usr/lib/python3/dist-packages/skimage/data",
    files: [
      "astronaut.png",
      "brick.png",
      "camera.png",
      "chelsea.png",
      "coffee.png",
      "coins.png",
      "grass.png",
      "gravel.png",
      "hubble_deep_field.jpg",
      "ihc.png",
      "moon.png",
      "motorcycle_left.png",
      "retina.jpg",
      "rocket.jpg",
    ],
  },
];

export const REAL_PHOTO_DEBS = process.env.REAL_PHOTO_DEBS ?? join(tmpdir(), "real-photo-debs");

/** The photographs' bytes, named by package and path; or why a package cannot be had. */
export function realPhotos(): { name: string; bytes: Buffer }[] | string {
  mkdirSync(REAL_PHOTO_DEBS, { recursive: true });
  const photos: { name: string; bytes: Buffer }[] = [];
  for (const { package: name, folder, files } of REAL_PHOTOS) {
    const debOf = () => readdirSync(REAL_PHOTO_DEBS).find((file) => file.startsWith(`${name}_`) && file.endsWith(".deb"));
    if (debOf() === undefined) {
      try {
        execFileSync("apt-get", ["download", name], { cwd: REAL_PHOTO_DEBS, stdio: "pipe" });
      } catch (error) {
        return `apt-get download ${name}: ${(error as Error).message.split("\n")[0]}`;
      }
    }
    const deb = join(REAL_PHOTO_DEBS, debOf()!);
    const unpacked = join(REAL_PHOTO_DEBS, name);
    const members = files.map((file) => `./${folder}/${file}`);
    if (!members.every((member) => existsSync(join(unpacked, member)))) {
      mkdirSync(unpacked, { recursive: true });
      execFileSync("sh", ["-c", 'deb="$0"; into="$1"; shift; dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$into" "$@"', deb, unpacked, ...members], {
        stdio: "pipe",
      });
    }
    for (const member of members) photos.push({ name: `${name}:${member.slice(2)}`, bytes: readFileSync(join(unpacked, member)) });
  }
  return photos;
}
