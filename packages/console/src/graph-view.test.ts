import { describe, expect, it } from 'vitest'
import { fitView, MIN_ZOOM_WIDTH, panView, zoomView } from './graph-view.js'

describe('graph view', () => {
  it('fits the whole drawing', () => {
    expect(fitView(800, 300)).toEqual({ x: 0, y: 0, width: 800, height: 300 })
    expect(fitView(0, 0)).toEqual({ x: 0, y: 0, width: 1, height: 1 })
  })

  it('zooms about the centre, keeping the aspect ratio, and is bounded', () => {
    const zoomed = zoomView(fitView(800, 400), 2)
    expect(zoomed).toEqual({ x: 200, y: 100, width: 400, height: 200 })
    let view = fitView(800, 400)
    for (let i = 0; i < 50; i++) view = zoomView(view, 2)
    expect(view.width).toBe(MIN_ZOOM_WIDTH)
    expect(view.width / view.height).toBeCloseTo(2)
  })

  it('pans opposite to the drag, in drawing units', () => {
    // A 400-unit window on a 200-pixel element: one pixel is two units.
    expect(panView({ x: 0, y: 0, width: 400, height: 200 }, 10, -5, 200)).toEqual({
      x: -20,
      y: 10,
      width: 400,
      height: 200,
    })
  })
})
